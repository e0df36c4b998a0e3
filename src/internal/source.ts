import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { UploadInputError } from '../errors.js';
import { NamedUpload, type Uploadable } from '../uploads.js';
import { fileLike, isWebStream, type LocalSource, openBytes, streamReadError } from './byte-source.js';
import { shorten } from './shorten.js';

export type { LocalSource, UploadFileLike } from './byte-source.js';

function isNodeReadable(value: unknown): value is Readable {
  const stream = value as Partial<Readable> | null | undefined;
  return value instanceof Readable || (typeof stream?.pipe === 'function' && typeof stream.on === 'function');
}

/** Whether an input can be read only once (a stream, named or not): a second reader would find it empty. */
export function isOneShot(input: unknown): boolean {
  if (input instanceof NamedUpload) return isOneShot(input.data);
  return isNodeReadable(input) || isWebStream(input);
}

/**
 * A string that names a URL rather than a path (`https://...`, `file:///...`): a scheme of two letters or more, so
 * a Windows drive (`C:\...`) stays a path.
 */
const URL_STRING = /^[a-z][a-z\d+.-]+:\/\//i;

/**
 * Open any {@link Uploadable} as a {@link LocalSource}. `field` is the argument it was given as (`audio_reference`),
 * for messages; `name` names data that has no name of its own.
 */
export async function openSource(input: Uploadable, field: string, name = field): Promise<LocalSource> {
  if (input instanceof NamedUpload) {
    const inner = await openSource(input.data, field, input.name);
    return { ...inner, name: input.name };
  }
  if (typeof input === 'string' && !URL_STRING.test(input)) return openPath(input, basename(input), field);
  if (typeof input === 'string' || input instanceof URL) {
    const url = typeof input !== 'string' ? input : URL.canParse(input) ? new URL(input) : undefined;
    if (url?.protocol !== 'file:') {
      // Only the scheme: a signed address carries its credentials in the rest.
      const what = url ? `a URL (${url.protocol})` : 'a string that looks like a URL but is not a valid one';
      throw new UploadInputError(
        `Only file: URLs and local paths can be uploaded; ${field} is ${what}. Download it first, or pass a stream.`,
      );
    }
    const path = fileURLToPath(url);
    return openPath(path, basename(path), field);
  }
  if (isNodeReadable(input)) return spool(input, name, field);
  // A web stream is spooled to disk as a Node stream is, rather than held in memory as the web entry holds it.
  if (isWebStream(input)) return spool(Readable.fromWeb(input as import('node:stream/web').ReadableStream), name, field);
  const bytes = await openBytes(input, field, name);
  if (bytes) return bytes;
  throw new UploadInputError(
    `Cannot upload a value of type ${typeof input} as ${field}: pass a file path, a file: URL, a Buffer/Uint8Array, a Blob/File, a Node Readable or a web ReadableStream.`,
  );
}

/** Why the file at `path`, given as `field`, cannot be opened, in words: the errno's own text repeats the path. */
function unreadable(field: string, path: string, error: unknown): UploadInputError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? `does not exist${isAbsolute(path) ? '' : ` (looked in ${shorten(process.cwd())})`}`
      : code === 'ENOTDIR'
        ? 'does not exist: a part of the path is not a folder'
        : code === 'EACCES' || code === 'EPERM'
          ? 'cannot be read: permission denied'
          : code === 'ENAMETOOLONG'
            ? 'cannot be read: the path is too long'
            : `cannot be read: ${code ?? shorten((error as Error).message)}`;
  return new UploadInputError(`${field}: ${shorten(path)} ${why}.`, { cause: error });
}

async function openPath(path: string, name: string, field: string, onDispose?: () => Promise<void>): Promise<LocalSource> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UploadInputError(`${field}: ${shorten(path)} is ${info.isDirectory() ? 'a folder' : 'not a file'}.`);
    size = info.size;
  } catch (error) {
    if (error instanceof UploadInputError) throw error;
    throw unreadable(field, path, error);
  }
  return {
    name,
    size,
    path,
    async read(offset, length) {
      const end = Math.min(size, offset + length);
      if (offset >= end) return new Uint8Array(0);
      const handle = await open(path, 'r');
      try {
        const { buffer, bytesRead } = await handle.read(new Uint8Array(end - offset), 0, end - offset, offset);
        return bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    // 1 MiB reads keep per-chunk overhead low for large video references.
    toFile: (fileName, type) => fileLike(fileName, type, size, () => createReadStream(path, { highWaterMark: 1 << 20 })),
    dispose: async () => onDispose?.(),
  };
}

/** Copy a one-shot stream to a private temporary file so it can be probed and re-sent on retry. */
async function spool(stream: Readable, name: string, field: string): Promise<LocalSource> {
  const dir = await mkdtemp(join(tmpdir(), 'avatar-video-'));
  const path = join(dir, 'upload');
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await pipeline(stream, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await remove();
    throw streamReadError(error, field, name);
  }
  return openPath(path, name, field, remove);
}
