import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';

/** Told how many bytes of one file have been read for the request now being sent. */
export type OnRead = (file: CountedFile, bytesRead: number) => void;

/**
 * A file on disk as a Blob that counts the bytes read from its stream, for the upload bar.
 *
 * The SDK has no upload-progress hook, but it sends a Blob by reading `stream()` as the request body
 * goes out, so bytes read are bytes handed to the socket. It is a Blob subclass because the SDK
 * recognises Blobs with `instanceof`. Reads through `slice()` (local validation reading headers) are
 * not counted, and each new `stream()` (a retried request) starts from zero.
 */
export class CountedFile extends Blob {
  readonly name: string;
  readonly #file: Blob;
  readonly #onRead: OnRead;

  private constructor(file: Blob, name: string, onRead: OnRead) {
    super([]);
    this.#file = file;
    this.name = name;
    this.#onRead = onRead;
  }

  /** Nothing is read here: the Blob refers to the file and reads it lazily. */
  static async open(path: string, onRead: OnRead): Promise<CountedFile> {
    return new CountedFile(await openAsBlob(path), basename(path), onRead);
  }

  override get size(): number {
    return this.#file.size;
  }

  override get type(): string {
    return this.#file.type;
  }

  override slice(start?: number, end?: number, contentType?: string): Blob {
    return this.#file.slice(start, end, contentType);
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#file.arrayBuffer();
  }

  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    let read = 0;
    this.#onRead(this, 0);
    const count = new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>>({
      transform: (chunk, controller) => {
        read += chunk.byteLength;
        this.#onRead(this, read);
        controller.enqueue(chunk);
      },
    });
    return this.#file.stream().pipeThrough(count);
  }
}

/** Sums the bytes read from several files into one upload figure. */
export class UploadMeter {
  readonly #read = new Map<CountedFile, number>();
  readonly #onProgress: (sent: number, total: number) => void;
  #total = 0;

  constructor(onProgress: (sent: number, total: number) => void) {
    this.#onProgress = onProgress;
  }

  /** Open `path` as a file counted by this meter. */
  async open(path: string): Promise<CountedFile> {
    const file = await CountedFile.open(path, (counted, bytes) => {
      this.#read.set(counted, bytes);
      let sent = 0;
      for (const value of this.#read.values()) sent += value;
      this.#onProgress(sent, this.#total);
    });
    this.#total += file.size;
    return file;
  }
}
