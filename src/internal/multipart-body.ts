import type * as Encoder from 'form-data-encoder';
import type { FormDataEncoder } from 'form-data-encoder';
import type * as FormDataNode from 'formdata-node';
import type { LocalSource, UploadFileLike } from './byte-source.js';
import { lazyRequire } from './lazy.js';

// The multipart body of a create as bytes, web-pure: internal/multipart.ts hands it to undici as a Node stream, the
// web entry (whose build bundles both packages) to fetch as it is.

// Loaded by the first upload: an app that sends no file never pays for them.
const encoder = lazyRequire<typeof Encoder>('form-data-encoder');
const formData = lazyRequire<typeof FormDataNode>('formdata-node');

/** A file part ready to send: where the bytes are, and the name and type to declare. */
export interface FilePart {
  field: string;
  source: LocalSource;
  filename: string;
  contentType: string;
}

/**
 * A multipart body that streams each file from its source, as chunks. Called once per attempt, because a stream can
 * be read only once; the Content-Length is exact, so the server sees no chunked upload. `onProgress` hears the bytes
 * as the HTTP layer takes them, from 0 to the Content-Length.
 */
export function multipartBody(
  files: FilePart[],
  fields: Record<string, string>,
  onProgress?: (progress: { bytes: number; total: number }) => void,
): { body: AsyncIterable<Uint8Array>; headers: Record<string, string> } {
  const form = new (formData().FormData)();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  // formdata-node accepts any object shaped like a File; ours streams without buffering.
  for (const part of files) form.set(part.field, part.source.toFile(part.filename, part.contentType) as unknown as File);
  const encoded = new (encoder().FormDataEncoder)(form);
  const headers: Record<string, string> = { 'content-type': encoded.contentType };
  if (encoded.contentLength !== undefined) headers['content-length'] = encoded.contentLength;
  const body = onProgress ? counted(bodyOf(encoded), Number(encoded.contentLength), onProgress) : bodyOf(encoded);
  return { body, headers };
}

/** `chunks`, telling `onProgress` the bytes passed on so far: a count, no copy. */
async function* counted(
  chunks: AsyncIterable<Uint8Array>,
  total: number,
  onProgress: (progress: { bytes: number; total: number }) => void,
) {
  let bytes = 0;
  onProgress({ bytes, total });
  for await (const chunk of chunks) {
    bytes += chunk.byteLength;
    onProgress({ bytes, total });
    yield chunk;
  }
}

/**
 * The body's bytes, each file's chunks as its source yields them. Not `encoder.encode()`, which copies chunks into
 * 64 KiB pieces (nearly twice the CPU, bench/upload.ts) and ignores a view's byteOffset (sending the wrong bytes).
 */
async function* bodyOf(encoder: FormDataEncoder): AsyncGenerator<Uint8Array> {
  for (const part of encoder.values()) {
    if (part instanceof Uint8Array) yield part;
    else yield* (part as unknown as UploadFileLike).stream();
  }
}
