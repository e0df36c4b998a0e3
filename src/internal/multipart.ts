import { Readable } from 'node:stream';
import type * as FormDataEncoder from 'form-data-encoder';
import { lazyRequire } from './lazy.js';
import { type FilePart, multipartBody } from './multipart-body.js';

export type { FilePart } from './multipart-body.js';

// Loaded by the first upload: an app that sends no file never pays for it.
const encoder = lazyRequire<typeof FormDataEncoder>('form-data-encoder');

/**
 * Encode a multipart body (internal/multipart-body.ts) as the Node stream undici sends. Called once per attempt,
 * because a stream can be read only once. `onProgress` hears the bytes as the HTTP layer takes them.
 */
export async function encodeMultipart(
  files: FilePart[],
  fields: Record<string, string>,
  onProgress?: (progress: { bytes: number; total: number }) => void,
): Promise<{ stream: Readable; headers: Record<string, string> }> {
  const { body, headers } = multipartBody(encoder().FormDataEncoder, files, fields, onProgress);
  // Large reads keep the per-chunk overhead low on big video references.
  return { stream: Readable.from(body, { objectMode: false, highWaterMark: 1 << 20 }), headers };
}
