import type { FormDataEncoder } from 'form-data-encoder';
import type { LocalSource, UploadFileLike } from './byte-source.js';

// The multipart body of a create as bytes, web-pure: the Node platform hands it to undici as a Node stream
// (internal/multipart.ts), the web platform to fetch as it is. Each gives form-data-encoder as it loads it.

/** form-data-encoder's class, as the platform loaded it (lazily on Node, bundled on the web). */
export type Encoder = typeof FormDataEncoder;

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
  Encoder: Encoder,
  files: FilePart[],
  fields: Record<string, string>,
  onProgress?: (progress: { bytes: number; total: number }) => void,
): { body: AsyncIterable<Uint8Array>; headers: Record<string, string> } {
  const entries: Array<[string, string | UploadFileLike]> = Object.entries(fields);
  // A file part is shaped like a File and streams from its source without buffering.
  for (const part of files) entries.push([part.field, part.source.toFile(part.filename, part.contentType)]);
  const encoded = new Encoder(formOf(entries) as never);
  const headers: Record<string, string> = { 'content-type': encoded.contentType };
  if (encoded.contentLength !== undefined) headers['content-length'] = encoded.contentLength;
  const body = onProgress ? counted(bodyOf(encoded), Number(encoded.contentLength), onProgress) : bodyOf(encoded);
  return { body, headers };
}

/**
 * The parts as the FormData shape form-data-encoder reads (it takes only their entries): a runtime's own FormData
 * would turn a file part that is not a real File into a string.
 */
function formOf(entries: Array<[string, string | UploadFileLike]>) {
  return {
    [Symbol.toStringTag]: 'FormData',
    append: () => {},
    getAll: (name: string) => entries.filter(([key]) => key === name).map(([, value]) => value),
    entries: () => entries[Symbol.iterator](),
    [Symbol.iterator]: () => entries[Symbol.iterator](),
  };
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
