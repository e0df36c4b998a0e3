import { isOneShot, type LocalSource, openSource } from '../../internal/source.js';
import { NamedUpload, type Uploadable } from '../../uploads.js';
import { disposeAll, FILE_FIELDS, type VideoCreateParams } from '../media/prepare.js';

/** Create parameters whose inputs can all be read again, and the temporary files that make it so. */
export interface PinnedParams {
  params: VideoCreateParams;
  /** Removes the spooled copies. Call it once nothing reads `params` any more. */
  dispose(): Promise<void>;
}

/**
 * `generateLong` reads its inputs more than once (validated, then split or uploaded), and a stream can
 * be read only once. Each one-shot input is spooled to a private temporary file here, once, and replaced
 * by that file under the same name; paths, buffers and blobs are kept as they are.
 */
export async function pinOneShotInputs(params: VideoCreateParams): Promise<PinnedParams> {
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
  } catch (error) {
    await disposeAll(spooled);
    throw error;
  }
  return { params: record as unknown as VideoCreateParams, dispose: () => disposeAll(spooled) };
}
