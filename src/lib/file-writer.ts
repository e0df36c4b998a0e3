import { writeSync } from 'node:fs';
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import { removeStaleTempFiles, tempPathFor } from '../internal/temp-path.js';

/**
 * A 64 KiB write into the page cache takes tens of microseconds. Writes slower than this come from a
 * slow disk (a network file system, the kernel throttling dirty pages) or from the process being
 * descheduled mid-write on a busy machine; one alone proves little.
 */
const SLOW_SYNC_WRITE_MS = 20;
/** After this many slow writes, the rest of the file is written asynchronously. */
const SLOW_WRITES_BEFORE_ASYNC = 3;
/**
 * Bytes written between background flushes. Flushing as we go lets the disk work while the network
 * does, so the fsync before the rename has little left to write. 8 MiB: a few flushes for a 5-40 MB
 * video, each large enough that its fixed cost does not matter.
 */
const FLUSH_EVERY_BYTES = 8 << 20;
/** In async mode, bytes queued before `write` asks the reader to pause. */
const MAX_QUEUED_BYTES = 4 << 20;

/**
 * A hidden temporary file next to the destination, renamed over it only once complete.
 *
 * Why writes start synchronous: writing each network chunk with `writeSync` while it is still in the CPU
 * cache skips the thread-pool hand-off of an async write, which for a chunk in the page cache costs more
 * than the write itself (bench/download.ts compares the SDK with `pipeline` into `createWriteStream` and
 * prints throughput and CPU per GiB for both). So that a slow disk cannot hold the event
 * loop for long, {@link SLOW_WRITES_BEFORE_ASYNC} writes slower than {@link SLOW_SYNC_WRITE_MS} switch
 * the rest of the file to async writes, one `writev` at a time, with backpressure.
 */
export class TempFile {
  /** The temporary file's path (in the destination's folder, so the final rename is atomic). */
  readonly path: string;
  readonly #handle: FileHandle;
  readonly #slowWriteMs: number;
  /** Bytes accepted so far: the file's length once queued writes land. */
  #size = 0;
  #sync = true;
  #slowWrites = 0;
  /** The file's size when the last background flush started, and that flush while it runs. */
  #flushedAt = 0;
  #syncing: Promise<void> | undefined;
  #queue: Uint8Array[] = [];
  #queuedBytes = 0;
  #writing: Promise<void> | undefined;
  #error: unknown;

  private constructor(path: string, handle: FileHandle, slowWriteMs: number) {
    this.path = path;
    this.#handle = handle;
    this.#slowWriteMs = slowWriteMs;
  }

  /**
   * Create `.<name>.<pid><random>.part` beside `destination`; exclusive, so it never reuses another file.
   * Temp files for the same destination left by a killed process are removed first.
   * `slowWriteMs` is for tests: a negative value counts every write as slow.
   */
  static async create(destination: string, slowWriteMs = SLOW_SYNC_WRITE_MS): Promise<TempFile> {
    await removeStaleTempFiles(destination);
    const path = tempPathFor(destination);
    // Read access too: the download checks the file's boxes before the rename.
    return new TempFile(path, await open(path, 'wx+'), slowWriteMs);
  }

  get size(): number {
    return this.#size;
  }

  /**
   * Append `chunk`. Returns false when the caller should wait for {@link drain} before writing more.
   * Throws a write error. With `reused`, the caller will overwrite `chunk` once this returns, so a
   * write that has to be queued keeps a copy.
   */
  write(chunk: Uint8Array, reused = false): boolean {
    if (this.#error) throw this.#error;
    const position = this.#size;
    this.#size += chunk.byteLength;
    if (!this.#sync) return this.#enqueue(reused ? Buffer.from(chunk) : chunk);
    const started = performance.now();
    for (let done = 0; done < chunk.byteLength; ) {
      done += writeSync(this.#handle.fd, chunk, done, chunk.byteLength - done, position + done);
    }
    if (performance.now() - started > this.#slowWriteMs && ++this.#slowWrites >= SLOW_WRITES_BEFORE_ASYNC) this.#sync = false;
    this.#flushInBackground();
    return true;
  }

  /** Read back up to `length` bytes at `offset` (after {@link drain}). */
  async read(offset: number, length: number): Promise<Uint8Array> {
    const buffer = Buffer.alloc(Math.max(0, Math.min(length, this.#size - offset)));
    const { bytesRead } = await this.#handle.read(buffer, 0, buffer.byteLength, offset);
    return buffer.subarray(0, bytesRead);
  }

  /** Resolves once queued writes have landed; rejects with a write error. */
  async drain(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#error) throw this.#error;
  }

  /** Drop everything written, to start over from byte 0. */
  async truncate(): Promise<void> {
    await this.drain();
    await this.#handle.truncate(0);
    this.#size = 0;
    this.#flushedAt = 0;
  }

  /** Flush to disk, close, and rename over `destination` (replacing a file there only now, atomically). */
  async commit(destination: string): Promise<void> {
    await this.drain();
    await this.#syncing;
    await this.#handle.datasync();
    await this.#handle.close();
    await rename(this.path, destination);
  }

  /** Close and delete the temporary file. Never throws: it runs while another error is on its way. */
  async discard(): Promise<void> {
    await this.drain().catch(() => {});
    await this.#syncing;
    await this.#handle.close().catch(() => {});
    await unlink(this.path).catch(() => {});
  }

  /** Start an fdatasync every {@link FLUSH_EVERY_BYTES}; its errors surface in the final one. */
  #flushInBackground(): void {
    if (this.#syncing || this.#size - this.#flushedAt < FLUSH_EVERY_BYTES) return;
    this.#flushedAt = this.#size;
    this.#syncing = this.#handle
      .datasync()
      .catch(() => {})
      .finally(() => {
        this.#syncing = undefined;
      });
  }

  #enqueue(chunk: Uint8Array): boolean {
    this.#queue.push(chunk);
    this.#queuedBytes += chunk.byteLength;
    this.#flushInBackground();
    this.#writing ??= this.#writeQueued().finally(() => {
      this.#writing = undefined;
    });
    return this.#queuedBytes < MAX_QUEUED_BYTES;
  }

  /** Write queued chunks as batches, one `writev` in flight at a time, in order. */
  async #writeQueued(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue;
        const bytes = this.#queuedBytes;
        const position = this.#size - bytes;
        this.#queue = [];
        this.#queuedBytes = 0;
        let done = (await this.#handle.writev(batch, position)).bytesWritten;
        // A short write is rare for regular files; finish the remainder from one buffer.
        if (done < bytes) {
          const rest = Buffer.concat(batch);
          while (done < bytes) done += (await this.#handle.write(rest, done, bytes - done, position + done)).bytesWritten;
        }
      }
    } catch (error) {
      this.#error = error;
      this.#queue = [];
      this.#queuedBytes = 0;
    }
  }
}
