import { Readable } from 'node:stream';
import { NamedUpload, type Uploadable } from '../../uploads.js';
import { MediaValidationError } from '../media/errors.js';
import { FILE_FIELDS, type VideoCreateParams } from '../media/prepare.js';
import { type ValidateOptions, validateCreateParams } from '../media/validate.js';
import { BatchInputError, type BatchProblem } from './errors.js';
import { InputHasher } from './inputs-hash.js';
import { keyIdentity, keyProblem } from './keys.js';
import type { LedgerEntry } from './ledger.js';
import type { BatchItem } from './types.js';

/** An item that passed every check, with the fingerprint of its inputs. */
export interface CheckedItem {
  index: number;
  key: string;
  params: VideoCreateParams;
  hash: string;
}

/** Items checked at once: validation reads only headers, so a few in parallel keep the disk busy. */
const CHECK_CONCURRENCY = 8;

/**
 * Check every item before any job is created: keys that are safe, unique file names; inputs that pass
 * local validation and can be read more than once; inputs unchanged since the ledger recorded the key.
 * Items are read once, as a stream; what is kept per item is its key, its inputs and a hash.
 * @throws BatchInputError listing every problem.
 */
export async function checkItems(
  items: Iterable<BatchItem> | AsyncIterable<BatchItem>,
  ledger: Map<string, LedgerEntry>,
  limits: ValidateOptions,
): Promise<CheckedItem[]> {
  const checked: CheckedItem[] = [];
  const problems: BatchProblem[] = [];
  const seen = new Map<string, string>();
  const hasher = new InputHasher();

  await forEachLimited(items, CHECK_CONCURRENCY, async (item, index) => {
    const key = (item as { key?: unknown } | null)?.key;
    const named = typeof key === 'string' ? key : undefined;
    const add = (code: string, message: string, field?: string) =>
      problems.push({ index, key: named, code, message, ...(field ? { field } : {}) });
    if (typeof item !== 'object' || item === null) return add('invalid_item', `item ${index} is not an object`);
    const badKey = keyProblem(key);
    if (badKey) add('invalid_key', badKey);
    else {
      const other = seen.get(keyIdentity(named as string));
      if (other === undefined) seen.set(keyIdentity(named as string), named as string);
      else {
        const alike = other === named ? '' : ` (as ${JSON.stringify(other)}: keys name files, and some file systems ignore case)`;
        add('duplicate_key', `key ${JSON.stringify(named)} is used twice${alike}`);
      }
    }
    const { key: _key, ...params } = item;
    const record = params as unknown as Record<string, unknown>;
    const streams = FILE_FIELDS.filter((field) => isOneShot(record[field]));
    for (const field of streams) {
      add(
        'one_shot_input',
        `${field} is a stream, which can be read only once; a batch may upload an item again: pass a path, a Buffer or a Blob`,
        field,
      );
    }
    if (streams.length > 0) return;
    try {
      await validateCreateParams(params as VideoCreateParams, limits);
    } catch (error) {
      if (!(error instanceof MediaValidationError)) return add('unreadable_input', (error as Error).message);
      for (const issue of error.issues) add(issue.code, issue.message, issue.field);
      return;
    }
    if (badKey) return;
    const hash = await hasher.hashParams(params as VideoCreateParams);
    const previous = ledger.get(named as string);
    if (previous && previous.hash !== hash) {
      return add(
        'inputs_changed',
        `inputs of ${JSON.stringify(named)} differ from those its earlier run in this folder used; give the item a new key, or use another outputDir`,
      );
    }
    checked.push({ index, key: named as string, params: params as VideoCreateParams, hash });
  });

  if (problems.length > 0) throw new BatchInputError(problems.sort((a, b) => a.index - b.index));
  return checked.sort((a, b) => a.index - b.index);
}

function isOneShot(value: unknown): boolean {
  const data = value instanceof NamedUpload ? value.data : (value as Uploadable | undefined);
  if (typeof data !== 'object' || data === null) return false;
  const stream = data as unknown as Partial<Readable & ReadableStream>;
  return data instanceof Readable || typeof stream.getReader === 'function' || typeof stream.pipe === 'function';
}

/** Run `task` over a stream of items, at most `limit` at once, reading the next item only when there is room. */
async function forEachLimited<T>(
  items: Iterable<T> | AsyncIterable<T>,
  limit: number,
  task: (item: T, index: number) => Promise<unknown>,
): Promise<void> {
  const running = new Set<Promise<unknown>>();
  let index = 0;
  for await (const item of items) {
    const run: Promise<unknown> = task(item, index++).finally(() => running.delete(run));
    running.add(run);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
}
