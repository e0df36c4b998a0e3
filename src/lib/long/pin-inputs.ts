import { isOneShot, type LocalSource, openSource } from '../../internal/source.js';
import { NamedUpload, type Uploadable } from '../../uploads.js';
import { disposeAll, FILE_FIELDS, type VideoCreateParams } from '../media/prepare.js';

/**
 * Run `use` on create parameters whose inputs can all be read again. `generateLong` reads its inputs more than once
 * (validated, then split or uploaded), and a stream can be read only once: each one-shot input is spooled to a private
 * temporary file here, once, and replaced by that file under the same name; paths, buffers and blobs are kept as they
 * are. The spooled copies are removed once `use` settles.
 */
export async function withPinnedInputs<T>(params: VideoCreateParams, use: (pinned: VideoCreateParams) => Promise<T>): Promise<T> {
  const record = { ...(params as unknown as Record<string, unknown>) };
  const spooled = new Map<string, LocalSource>();
  try {
    for (const field of FILE_FIELDS) {
      const input = record[field];
      if (!isOneShot(input)) continue;
      const source = await openSource(input as Uploadable, field);
      spooled.set(field, source);
      // A spooled stream always lives in a file: path is set.
      record[field] = new NamedUpload(source.path as string, source.name);
    }
    return await use(record as unknown as VideoCreateParams);
  } finally {
    await disposeAll(spooled);
  }
}
