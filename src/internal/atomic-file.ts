import { randomBytes } from 'node:crypto';
import { writeSync } from 'node:fs';
import { type FileHandle, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

// The one way the SDK saves a file: to `.<name>.<pid><random>.part` beside it (the pid as 8 hex digits, so a later
// run can tell a killed process's file from one being written), flushed, renamed over it, its folder flushed. The
// destination is always the old file or the whole new one, across a power cut too.
// Not write-file-atomic: it takes a whole buffer or string, where downloads stream, and cannot tell a dead writer's
// temporary file from a live one's, which removeStaleTempFiles needs.

/** A temp file untouched for this long is dead even if a process of its pid runs (the pid was reused). */
const ABANDONED_MS = 60 * 60_000;
/** What follows the destination's name in a temp file's name: `.` + 12 hex digits + `.part`. */
const TAIL = /^\.[0-9a-f]{12}\.part$/;
const TAIL_LENGTH = 18;
/** A 64 KiB write to the page cache takes tens of µs; one slow write may be a busy machine, so it takes three. */
const SLOW_SYNC_WRITE_MS = 20;
const SLOW_WRITES_BEFORE_ASYNC = 3;
/** Bytes between background flushes, so that the flush before the rename has little left: a few per video. */
const FLUSH_EVERY_BYTES = 8 << 20;
/** In async mode, bytes queued before {@link AtomicFile.write} waits for them to land. */
const MAX_QUEUED_BYTES = 4 << 20;

/**
 * A temporary file being filled. Writes start synchronous: `writeSync` skips the thread-pool hand-off of an async
 * write, which costs more than the write itself, and over a shaped link (bench/download.ts --shaped) took less wall
 * time, CPU and memory. After slow writes the rest goes async (one `writev` at a time), so a slow disk cannot hold
 * the event loop.
 */
class AtomicFile {
  /** Bytes accepted so far: the file's length once queued writes land. */
  #size = 0;
  #sync = true;
  #slowWrites = 0;
  /** The file's size when the last background flush started, and that flush while it runs. */
  #flushedAt = 0;
  #flushing: Promise<void> | undefined;
  #queue: Uint8Array[] = [];
  #queuedBytes = 0;
  #writing: Promise<void> | undefined;
  #error: unknown;

  constructor(
    /** The temporary file's path: a writer that takes a path (mediabunny's) fills it through this. */
    readonly path: string,
    readonly handle: FileHandle,
  ) {}

  get size(): number {
    return this.#size;
  }

  /** Append `chunk`; resolves at once unless {@link MAX_QUEUED_BYTES} wait for the disk (the backpressure). */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.#error) throw this.#error;
    const position = this.#size;
    this.#size += chunk.byteLength;
    if (this.#sync) {
      const started = performance.now();
      for (let done = 0; done < chunk.byteLength; ) {
        done += writeSync(this.handle.fd, chunk, done, chunk.byteLength - done, position + done);
      }
      if (performance.now() - started > SLOW_SYNC_WRITE_MS && ++this.#slowWrites >= SLOW_WRITES_BEFORE_ASYNC) this.#sync = false;
    } else {
      // A copy: the caller may reuse its buffer (a socket read) once this resolves, before the queue lands.
      this.#queue.push(Buffer.from(chunk));
      this.#queuedBytes += chunk.byteLength;
      this.#writing ??= this.#writeQueued().finally(() => {
        this.#writing = undefined;
      });
    }
    this.#flushInBackground();
    if (this.#queuedBytes >= MAX_QUEUED_BYTES) await this.drain();
  }

  /** Resolves once queued writes (and a background flush) have landed; rejects with a write error. */
  async drain(): Promise<void> {
    while (this.#writing) await this.#writing;
    await this.#flushing;
    if (this.#error) throw this.#error;
  }

  /** Read back up to `length` bytes at `offset`, after {@link drain}. */
  async read(offset: number, length: number): Promise<Uint8Array> {
    const buffer = Buffer.alloc(Math.max(0, Math.min(length, this.#size - offset)));
    const { bytesRead } = await this.handle.read(buffer, 0, buffer.byteLength, offset);
    return buffer.subarray(0, bytesRead);
  }

  /** Drop everything written, to start over from byte 0. */
  async truncate(): Promise<void> {
    await this.drain();
    await this.handle.truncate(0);
    this.#size = 0;
    this.#flushedAt = 0;
  }

  /** Start an fdatasync every {@link FLUSH_EVERY_BYTES}; its errors surface in the final one. */
  #flushInBackground(): void {
    if (this.#flushing || this.#size - this.#flushedAt < FLUSH_EVERY_BYTES) return;
    this.#flushedAt = this.#size;
    this.#flushing = this.handle
      .datasync()
      .catch(() => {})
      .finally(() => {
        this.#flushing = undefined;
      });
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
        let done = (await this.handle.writev(batch, position)).bytesWritten;
        // A short write (a disk filling up) is finished from one buffer, so that its error surfaces.
        if (done < bytes) {
          const rest = Buffer.concat(batch);
          while (done < bytes) done += (await this.handle.write(rest, done, bytes - done, position + done)).bytesWritten;
        }
      }
    } catch (error) {
      this.#error = error;
      this.#queue = [];
      this.#queuedBytes = 0;
    }
  }
}

export type { AtomicFile };

/**
 * Save `destination` atomically: `fill` writes the temporary file (or is the whole content). If anything fails (an
 * abort is `fill`'s to notice), the temporary file goes and `destination` is untouched.
 * @returns what `fill` resolved with.
 */
export async function writeFileAtomic<T = void>(
  destination: string,
  fill: string | Uint8Array | ((file: AtomicFile) => Promise<T>),
): Promise<T> {
  const folder = dirname(destination);
  await removeStaleTempFiles(folder, [basename(destination)]);
  const path = tempPathFor(destination);
  // Exclusive, so it never takes over another file; readable, so a download can check its boxes.
  const file = new AtomicFile(path, await open(path, 'wx+'));
  try {
    const result = typeof fill === 'function' ? await fill(file) : await file.write(Buffer.from(fill));
    await file.drain();
    await file.handle.datasync();
    await file.handle.close();
    await rename(path, destination);
    await syncFolder(folder);
    return result as T;
  } catch (error) {
    await file.drain().catch(() => {});
    await file.handle.close().catch(() => {});
    await unlink(path).catch(() => {});
    throw error;
  }
}

/** Flush `folder`'s entries, so that a rename survives a power cut; best effort (Windows cannot). */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r').catch(() => undefined);
  await handle?.sync().catch(() => {});
  await handle?.close();
}

/** A fresh temporary path beside `destination`, in the naming above. */
export function tempPathFor(destination: string): string {
  const tag = process.pid.toString(16).padStart(8, '0').slice(-8) + randomBytes(2).toString('hex');
  return join(dirname(destination), `.${basename(destination)}.${tag}.part`);
}

/**
 * Remove the temporary files in `folder` of our naming for the destinations `names` that no live process writes
 * (their pid is gone, or untouched for an hour); nothing else. Never throws: cleaning up must not fail a save.
 * @returns the paths removed.
 */
export async function removeStaleTempFiles(folder: string, names: Iterable<string>, now = Date.now()): Promise<string[]> {
  const wanted = new Set(names);
  const removed: string[] = [];
  for (const entry of await readdir(folder).catch(() => [] as string[])) {
    const tail = entry.slice(-TAIL_LENGTH);
    if (!entry.startsWith('.') || !TAIL.test(tail) || !wanted.has(entry.slice(1, -TAIL_LENGTH))) continue;
    const path = join(folder, entry);
    const modified = (await stat(path).catch(() => undefined))?.mtimeMs;
    if (modified === undefined) continue;
    if (processAlive(Number.parseInt(tail.slice(1, 9), 16)) && now - modified < ABANDONED_MS) continue;
    try {
      await unlink(path);
      removed.push(path);
    } catch {
      // Gone already (another writer swept it first), or not ours to remove: leave it.
    }
  }
  return removed;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a file saved earlier is there whole: a file of exactly the size recorded when it was saved. */
export async function isSavedWhole(path: string, bytes: number | null | undefined): Promise<boolean> {
  return bytes != null && (await savedSize(path)) === bytes;
}

/** The size of the file at `path`, if there is one: where only saves write, a file there is whole (renamed in whole). */
export async function savedSize(path: string): Promise<number | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ? info.size : undefined;
}
