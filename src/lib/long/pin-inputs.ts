import { isOneShot, type LocalSource, openSource } from '../../internal/source.js';
import { NamedUpload, type Uploadable } from '../../uploads.js';
import { disposeAll, FILE_FIELDS, type VideoCreateParams } from '../media/prepare.js';

/**
 * Run `use` on `params` with each one-shot input (a stream) spooled to a private temporary file under the same name,
 * removed once `use` settles: `generateLong` reads its inputs more than once (validated, then split or uploaded).
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
