import type { Readable } from 'node:stream';
import { checkArgument, pathTo } from './internal/arguments.js';

/**
 * Anything a file part of `videos.create` accepts. Nothing is read whole into memory:
 * paths and `file:` URLs are streamed from disk, one-shot streams are spooled to a temporary
 * file (so a retried request can send them again), which is removed afterwards.
 */
export type Uploadable = string | URL | Uint8Array | ArrayBuffer | Blob | Readable | ReadableStream<Uint8Array> | NamedUpload;

/** Data with a file name attached, from {@link toFile}. */
export class NamedUpload {
  /** The wrapped data. */
  readonly data: Exclude<Uploadable, NamedUpload>;
  /** File name shown in messages and sent as the part's file name (the extension follows the detected format). */
  readonly name: string;
  constructor(data: Exclude<Uploadable, NamedUpload>, name: string) {
    this.data = data;
    this.name = checkArgument('toFile', 'name', name, pathTo("a file name, e.g. 'speech.wav'"));
  }
}

/**
 * Give a name to in-memory data or a stream, so that messages and the upload can name it.
 * Nothing is read here; a stream is consumed once, when the request is made.
 *
 * @example
 * await client.videos.create({ audio_reference: toFile(buffer, 'speech.wav'), image_reference: './me.png' });
 */
export function toFile(data: Uploadable, name: string): NamedUpload {
  return new NamedUpload(data instanceof NamedUpload ? data.data : data, name);
}
