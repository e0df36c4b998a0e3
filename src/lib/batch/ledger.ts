import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { syncFolder } from '../../internal/atomic-file.js';

/** The ledger's file name inside the output folder. */
const LEDGER_NAME = '.avatar-video-batch.jsonl';

/**
 * One line of the ledger. Every state change of an item is written before it matters (`creating`
 * before the create request, `created` as soon as its answer names the job), so a crash at any moment
 * loses at most the jobs whose create answer had not arrived yet. An item made in segments has `creating`
 * before its first segment and `saved` with `segmentIds`; its segment jobs are in its own manifest (long-item.ts).
 */
export type LedgerRecord =
  | { key: string; hash: string; state: 'creating' }
  | { key: string; hash: string; state: 'created'; jobId: string }
  | { key: string; hash: string; state: 'failed'; jobId?: string; code: string; message: string }
  | { key: string; hash: string; state: 'saved'; jobId?: string; segmentIds?: string[]; path: string; bytes: number };

/** The last record of each key in the ledger of `dir` (none when there is no ledger). A line torn by a crash is skipped. */
export async function readLedger(dir: string): Promise<Map<string, LedgerRecord>> {
  const entries = new Map<string, LedgerRecord>();
  const handle = await open(join(dir, LEDGER_NAME), 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!handle) return entries;
  // readLines closes the handle once the lines are read (or the loop is left).
  const lines = handle.readLines({ encoding: 'utf8' });
  for await (const line of lines) {
    const record = parseLine(line);
    if (record) entries.set(record.key, record);
  }
  return entries;
}

function parseLine(line: string): LedgerRecord | undefined {
  if (line.trim() === '') return undefined;
  try {
    const record = JSON.parse(line) as LedgerRecord;
    return typeof record?.key === 'string' && typeof record.hash === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Appends records, each durable (written and fsynced) before its promise resolves. Records arriving while a
 * flush runs share the next write and fsync (a group commit), so a thousand items do not queue a thousand fsyncs.
 * Flushed as `writeFileAtomic` flushes (data before it counts, the folder when the file is new), but an append is
 * not a replace: no temporary file, and a line torn by a crash is skipped by the reader.
 */
export class LedgerWriter {
  readonly #handle: FileHandle;
  #pending: Array<{ line: string; resolve: () => void; reject: (error: unknown) => void }> = [];
  #flushing = false;

  private constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  static async open(dir: string): Promise<LedgerWriter> {
    const handle = await open(join(dir, LEDGER_NAME), 'a+');
    const { size } = await handle.stat();
    // Likely just made: a power cut must not lose the file with the lines fsynced into it.
    if (size === 0) await syncFolder(dir);
    // A crash may have left half a line: start on a fresh one, so the next record is not glued to it.
    if (size > 0) {
      const last = new Uint8Array(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) await handle.write('\n');
    }
    return new LedgerWriter(handle);
  }

  append(record: LedgerRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ line: `${JSON.stringify(record)}\n`, resolve, reject });
      if (!this.#flushing) void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#flushing = true;
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      try {
        await this.#handle.write(batch.map((entry) => entry.line).join(''));
        await this.#handle.datasync();
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.#flushing = false;
  }

  async close(): Promise<void> {
    await this.#handle.close();
  }
}
