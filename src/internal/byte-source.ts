import { UploadInputError } from '../errors.js';
import { NamedUpload } from '../uploads.js';
import { chunksOf } from './http-client.js';
import { shorten } from './shorten.js';

// Upload inputs that are bytes already (Uint8Array, ArrayBuffer, Blob/File, web ReadableStream), opened with web APIs
// only: the web platform's sources, and the byte cases of internal/source.ts (Node's), which adds paths and streams.

/**
 * An upload input opened for random-access reads (media probing) and for sending (as many times as a
 * retry needs). One-shot streams are spooled (to a temporary file on Node, to memory on the web); `dispose()` frees it.
 */
export interface LocalSource {
  /** Name for messages and the upload's file name. */
  readonly name: string;
  readonly size: number;
  /** Path on disk, when the data lives in a file. */
  readonly path: string | undefined;
  /** Read up to `length` bytes at `offset` (fewer at the end of the data). */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** A file part for a multipart body; each call gives a fresh one, read lazily from the source. */
  toFile(name: string, type: string): UploadFileLike;
  /** Remove anything this source created (a spooled temporary file). Safe to call twice. */
  dispose(): Promise<void>;
}

/**
 * The File shape form-data-encoder accepts, built by hand: a library's own file streams (formdata-node's) throw an
 * uncaught exception when a server answers (say, 503) before reading the whole upload.
 */
export type UploadFileLike = ReturnType<typeof fileLike>;

export function fileLike(name: string, type: string, size: number, stream: () => AsyncIterable<Uint8Array>) {
  return { name, type, size, lastModified: Date.now(), stream, [Symbol.toStringTag]: 'File' as const };
}

export function isWebStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof value === 'object' && value !== null && typeof (value as ReadableStream).getReader === 'function';
}

/**
 * Open bytes as a {@link LocalSource}, or undefined for any other kind of input. `field` is the argument it was given
 * as, for messages; `name` names data that has no name of its own. A web stream is read into memory here: only the
 * Node entry can spool to disk (internal/source.ts does, before asking this).
 */
export async function openBytes(input: unknown, field: string, name = field): Promise<LocalSource | undefined> {
  if (input instanceof NamedUpload) {
    const inner = await openBytes(input.data, field, input.name);
    return inner && { ...inner, name: input.name };
  }
  if (input instanceof ArrayBuffer) return bytesSource(new Uint8Array(input), name);
  if (input instanceof Uint8Array) return bytesSource(input, name);
  if (typeof Blob !== 'undefined' && input instanceof Blob) {
    const own = (input as { name?: unknown }).name;
    return blobSource(input, typeof own === 'string' && own !== '' ? own : name);
  }
  if (isWebStream(input)) return blobSource(await collect(input, field, name), name);
  return undefined;
}

/** The web platform's `openSource`: bytes only (a path needs a filesystem). */
export async function openSource(input: unknown, field: string, name = field): Promise<LocalSource> {
  const source = await openBytes(input, field, name);
  if (source) return source;
  const what = typeof input === 'string' ? 'a string (a path or URL: there is no filesystem here)' : `a value of type ${typeof input}`;
  throw new UploadInputError(`Cannot upload ${what} as ${field}: pass a Blob/File, a Uint8Array, an ArrayBuffer or a web ReadableStream.`);
}

/** Whether an input can be read only once (a stream, named or not): a second reader would find it empty. */
export function isOneShot(input: unknown): boolean {
  if (input instanceof NamedUpload) return isOneShot(input.data);
  return isWebStream(input);
}

function bytesSource(bytes: Uint8Array, name: string): LocalSource {
  return {
    name,
    size: bytes.byteLength,
    path: undefined,
    read: async (offset, length) => bytes.subarray(offset, Math.min(bytes.byteLength, offset + length)),
    toFile: (fileName, type) =>
      fileLike(fileName, type, bytes.byteLength, async function* () {
        yield bytes;
      }),
    dispose: async () => {},
  };
}

function blobSource(blob: Blob, name: string): LocalSource {
  return {
    name,
    size: blob.size,
    path: undefined,
    read: async (offset, length) => new Uint8Array(await blob.slice(offset, offset + length).arrayBuffer()),
    toFile: (fileName, type) => fileLike(fileName, type, blob.size, () => chunksOf(blob.stream())),
    dispose: async () => {},
  };
}

/** A one-shot web stream read whole into a Blob, so it can be probed and sent again on a retry. */
async function collect(stream: ReadableStream<Uint8Array>, field: string, name: string): Promise<Blob> {
  const parts: Uint8Array[] = [];
  try {
    for await (const chunk of chunksOf(stream)) parts.push(chunk);
  } catch (error) {
    throw streamReadError(error, field, name);
  }
  return new Blob(parts as BlobPart[]);
}

/** The error for a one-shot stream that failed while it was read (spooled to disk on Node, to memory here). */
export function streamReadError(error: unknown, field: string, name: string): UploadInputError {
  const why = shorten((error as Error)?.message ?? String(error));
  return new UploadInputError(`${field}: could not read the stream${name === field ? '' : ` for ${shorten(name)}`}: ${why}`, {
    cause: error,
  });
}
