import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { openSource } from '../../internal/source.js';
import { NamedUpload, type Uploadable } from '../../uploads.js';
import { FILE_FIELDS, type VideoCreateParams } from './prepare.js';

const CHUNK = 1 << 20;

/**
 * Fingerprints of a batch's inputs. One portrait is often shared by every item, so a digest is kept for the
 * batch's life: a file's per path, size and modification time, in-memory data's per object.
 */
export class InputHasher {
  readonly #digests = new Map<string | object, Promise<string>>();

  /** sha256 over each input's bytes, its field and the model: equal exactly when a job would be made from the same inputs. */
  async hashParams(params: VideoCreateParams): Promise<string> {
    const record = params as unknown as Record<string, unknown>;
    const hash = createHash('sha256');
    for (const field of FILE_FIELDS) {
      const value = record[field];
      if (value !== undefined && value !== null) hash.update(`${field}:${await this.hashInput(value as Uploadable)}\n`);
    }
    hash.update(`model:${typeof record.model === 'string' ? record.model : ''}\n`);
    return hash.digest('hex');
  }

  async hashInput(input: Uploadable): Promise<string> {
    if (input instanceof NamedUpload) return this.hashInput(input.data);
    const path = typeof input === 'string' ? input : input instanceof URL && input.protocol === 'file:' ? fileURLToPath(input) : undefined;
    if (path === undefined && (typeof input !== 'object' || input === null)) return hashBytes(input);
    const id = path === undefined ? input : await stat(path).then((info) => `${path}\0${info.size}\0${info.mtimeMs}`);
    let digest = this.#digests.get(id);
    if (!digest) {
      digest = path === undefined ? hashBytes(input) : hashFile(path);
      this.#digests.set(id, digest);
    }
    return digest;
  }
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Bytes, an ArrayBuffer or a Blob, read a chunk at a time. */
async function hashBytes(input: Uploadable): Promise<string> {
  const source = await openSource(input, 'input');
  try {
    const hash = createHash('sha256');
    for (let offset = 0; offset < source.size; offset += CHUNK) hash.update(await source.read(offset, CHUNK));
    return hash.digest('hex');
  } finally {
    await source.dispose();
  }
}
