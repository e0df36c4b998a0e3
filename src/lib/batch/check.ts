import { BatchInputError, type BatchProblem, MediaValidationError } from '../../errors.js';
import { runPool } from '../../internal/run-pool.js';
import { isOneShot } from '../../internal/source.js';
import { InputHasher } from '../media/inputs-hash.js';
import { FILE_FIELDS, type VideoCreateParams } from '../media/prepare.js';
import { LIMITS, type MediaLimits, validateCreateParams } from '../media/validate.js';
import { keyProblem, sameFileKey } from './key.js';
import type { LedgerRecord } from './ledger.js';
import type { BatchItem } from './types.js';

/** An item whose key and inputs pass every check, before its inputs are fingerprinted. */
export interface ReviewedItem {
  index: number;
  key: string;
  params: VideoCreateParams;
  /** Its audio is longer than one job allows: it is made in segments, as generateLong makes a long video. */
  long: boolean;
  /** Its audio's length, as validation measured it. */
  audioSeconds: number;
}

/** An item that passed every check, with the fingerprint of its inputs. */
export interface CheckedItem extends ReviewedItem {
  hash: string;
}

/** Items checked at once: validation reads only headers, so a few in parallel keep the disk busy. */
const CHECK_CONCURRENCY = 8;

/**
 * Check every item before any job is created: keys that are safe, unique file names; inputs that pass
 * local validation and can be read more than once; inputs unchanged since the ledger recorded the key.
 * Audio longer than `limits.maxAudioSeconds` passes: such an item is marked `long`, to be made in segments.
 * Items are read once, as a stream; what is kept per item is its key, its inputs and a hash.
 * @throws BatchInputError listing every problem.
 */
export async function checkItems(
  items: Iterable<BatchItem> | AsyncIterable<BatchItem>,
  ledger: Map<string, LedgerRecord>,
  limits: MediaLimits,
): Promise<CheckedItem[]> {
  const seen = new Map<string, string>();
  const hasher = new InputHasher();
  const checks = await runPool(items, CHECK_CONCURRENCY, async (item, index) => {
    const reviewed = await reviewItem(item, index, seen, limits);
    return Array.isArray(reviewed) ? reviewed : fingerprinted(reviewed, hasher, ledger);
  });
  const problems = checks.flatMap((check) => (Array.isArray(check) ? check : []));
  if (problems.length > 0) throw new BatchInputError(problems);
  return checks as CheckedItem[];
}

/**
 * Every item checked as {@link checkItems} checks it, but for the ledger (no inputs are hashed): each item's problems
 * returned in its place rather than thrown, for `videos.plan`.
 */
export async function reviewItems(
  items: Iterable<BatchItem> | AsyncIterable<BatchItem>,
  limits: MediaLimits,
): Promise<Array<ReviewedItem | BatchProblem[]>> {
  const seen = new Map<string, string>();
  return runPool(items, CHECK_CONCURRENCY, (item, index) => reviewItem(item, index, seen, limits));
}

type Problem = Omit<BatchProblem, 'index' | 'key'>;

const refusal = (index: number, key: string | undefined, problems: Problem[]): BatchProblem[] =>
  problems.map((problem) => ({ index, key, ...problem }));

/** One item's key and inputs checked, or its problems. Its key is claimed at once, so duplicates are found in input order. */
async function reviewItem(
  item: BatchItem,
  index: number,
  seen: Map<string, string>,
  limits: MediaLimits,
): Promise<ReviewedItem | BatchProblem[]> {
  const named = typeof (item as { key?: unknown } | null)?.key === 'string' ? item.key : undefined;
  if (typeof item !== 'object' || item === null)
    return refusal(index, named, [{ code: 'invalid_item', message: `item ${index} is not an object` }]);
  const { key, ...rest } = item;
  const params = rest as VideoCreateParams;
  const problems = keyProblems(key, seen);
  const inputs = await inputProblems(params, limits);
  problems.push(...inputs.problems);
  if (problems.length > 0) return refusal(index, named, problems);
  return { index, key, params, long: inputs.long, audioSeconds: inputs.audioSeconds };
}

/** A reviewed item with its inputs' fingerprint, unless they differ from those the ledger recorded for its key. */
async function fingerprinted(
  item: ReviewedItem,
  hasher: InputHasher,
  ledger: Map<string, LedgerRecord>,
): Promise<CheckedItem | BatchProblem[]> {
  const hash = await hasher.hashParams(item.params);
  if ((ledger.get(item.key)?.hash ?? hash) === hash) return { ...item, hash };
  const message = `inputs of ${JSON.stringify(item.key)} differ from those its earlier run in this folder used; give the item a new key, or use another outputDir`;
  return refusal(item.index, item.key, [{ code: 'inputs_changed', message }]);
}

/** A key's problems: not a safe file name, or already used by an earlier item. */
function keyProblems(key: unknown, seen: Map<string, string>): Problem[] {
  const invalid = keyProblem(key);
  if (invalid !== undefined) return [{ code: 'invalid_key', message: invalid }];
  const named = key as string;
  const other = seen.get(sameFileKey(named));
  if (other === undefined) {
    seen.set(sameFileKey(named), named);
    return [];
  }
  const alike = other === named ? '' : ` (as ${JSON.stringify(other)}: keys name files, and some file systems ignore case)`;
  return [{ code: 'duplicate_key', message: `key ${JSON.stringify(named)} is used twice${alike}` }];
}

/**
 * An item's input problems: one-shot streams (`reread` says why an input is read again: a batch may upload an item
 * again), then local validation with no upper bound on the audio; whether its audio is longer than one job allows
 * (so it is made in segments), and its length.
 */
export async function inputProblems(
  params: VideoCreateParams,
  limits: MediaLimits,
  reread = 'a batch may upload an item again',
): Promise<{ problems: Problem[]; long: boolean; audioSeconds: number }> {
  const refused = (problems: Problem[]) => ({ problems, long: false, audioSeconds: 0 });
  const record = params as unknown as Record<string, unknown>;
  const streams = FILE_FIELDS.filter((field) => isOneShot(record[field]));
  if (streams.length > 0) {
    return refused(
      streams.map((field) => ({
        field,
        code: 'one_shot_input',
        message: `${field} is a stream, which can be read only once; ${reread}: pass a path, a Buffer or a Blob`,
      })),
    );
  }
  try {
    const { audio } = await validateCreateParams(params, { ...limits, maxAudioSeconds: Number.POSITIVE_INFINITY });
    const audioSeconds = audio.durationSeconds ?? 0;
    // The test generateLong makes: audio longer than one job allows is split.
    return { problems: [], long: audioSeconds > (limits.maxAudioSeconds ?? LIMITS.maxAudioSeconds), audioSeconds };
  } catch (error) {
    if (!(error instanceof MediaValidationError)) return refused([{ code: 'unreadable_input', message: (error as Error).message }]);
    return refused(error.issues.map((issue) => ({ field: issue.field, code: issue.code, message: issue.message })));
  }
}
