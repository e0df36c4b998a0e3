import { BatchInputError, type BatchProblem, MediaValidationError } from '../../errors.js';
import { runPool } from '../../internal/run-pool.js';
import { isOneShot } from '../../internal/source.js';
import { InputHasher } from '../media/inputs-hash.js';
import { FILE_FIELDS, type VideoCreateParams } from '../media/prepare.js';
import { LIMITS, type MediaLimits, validateCreateParams } from '../media/validate.js';
import { keyProblem, sameFileKey } from './key.js';
import type { LedgerRecord } from './ledger.js';
import type { BatchItem } from './types.js';

/** An item that passed every check, with the fingerprint of its inputs. */
export interface CheckedItem {
  index: number;
  key: string;
  params: VideoCreateParams;
  hash: string;
  /** Its audio is longer than one job allows: it is made in segments, as generateLong makes a long video. */
  long: boolean;
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
  const batch = { seen: new Map<string, string>(), hasher: new InputHasher(), ledger, limits };
  const checks = await runPool(items, CHECK_CONCURRENCY, (item, index) => checkItem(item, index, batch));
  const problems = checks.flatMap((check) => (Array.isArray(check) ? check : []));
  if (problems.length > 0) throw new BatchInputError(problems);
  return checks as CheckedItem[];
}

type Problem = Omit<BatchProblem, 'index' | 'key'>;

/** One item checked, or its problems. Its key is claimed at once, so duplicates are found in input order. */
async function checkItem(
  item: BatchItem,
  index: number,
  batch: { seen: Map<string, string>; hasher: InputHasher; ledger: Map<string, LedgerRecord>; limits: MediaLimits },
): Promise<CheckedItem | BatchProblem[]> {
  const named = typeof (item as { key?: unknown } | null)?.key === 'string' ? item.key : undefined;
  const refuse = (problems: Problem[]) => problems.map((problem) => ({ index, key: named, ...problem }));
  if (typeof item !== 'object' || item === null) return refuse([{ code: 'invalid_item', message: `item ${index} is not an object` }]);
  const { key, ...rest } = item;
  const params = rest as VideoCreateParams;
  const problems = keyProblems(key, batch.seen);
  const inputs = await inputProblems(params, batch.limits);
  problems.push(...inputs.problems);
  if (problems.length > 0) return refuse(problems);
  const hash = await batch.hasher.hashParams(params);
  if ((batch.ledger.get(key)?.hash ?? hash) !== hash) {
    const message = `inputs of ${JSON.stringify(key)} differ from those its earlier run in this folder used; give the item a new key, or use another outputDir`;
    return refuse([{ code: 'inputs_changed', message }]);
  }
  return { index, key, params, hash, long: inputs.long };
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
 * An item's input problems: one-shot streams (a batch may upload an item again), then local validation with no
 * upper bound on the audio; and whether its audio is longer than one job allows (so it is made in segments).
 */
async function inputProblems(params: VideoCreateParams, limits: MediaLimits): Promise<{ problems: Problem[]; long: boolean }> {
  const refused = (problems: Problem[]) => ({ problems, long: false });
  const record = params as unknown as Record<string, unknown>;
  const streams = FILE_FIELDS.filter((field) => isOneShot(record[field]));
  if (streams.length > 0) {
    return refused(
      streams.map((field) => ({
        field,
        code: 'one_shot_input',
        message: `${field} is a stream, which can be read only once; a batch may upload an item again: pass a path, a Buffer or a Blob`,
      })),
    );
  }
  try {
    const { audio } = await validateCreateParams(params, { ...limits, maxAudioSeconds: Number.POSITIVE_INFINITY });
    // The test generateLong makes: audio longer than one job allows is split.
    return { problems: [], long: (audio.durationSeconds ?? 0) > (limits.maxAudioSeconds ?? LIMITS.maxAudioSeconds) };
  } catch (error) {
    if (!(error instanceof MediaValidationError)) return refused([{ code: 'unreadable_input', message: (error as Error).message }]);
    return refused(error.issues.map((issue) => ({ field: issue.field, code: issue.code, message: issue.message })));
  }
}
