import { type BatchProblem, MediaValidationError } from '../../errors.js';
import { PUBLISHED_CREATE_RATE } from '../../internal/create-rate.js';
import { runPool } from '../../internal/run-pool.js';
import { inputProblems, type ReviewedItem, reviewItems } from '../batch/check.js';
import type { BatchItem } from '../batch/types.js';
import type { JobContext } from '../endpoints.js';
import type { VideoCreateParams } from '../media/prepare.js';
import { billedSeconds, type PlanAssumptions, planTotals } from './figures.js';
import { plannedSegments } from './segments.js';

export type { PlanAssumptions } from './figures.js';

/** Options of `videos.plan`. */
export interface PlanOptions {
  /**
   * Longest audio per job, in seconds, as `generateLong` takes it: longer audio is planned in the segments it would
   * be cut into. A batch cuts its long items at the client's `limits.maxAudioSeconds`, this default.
   * @default the client's `limits.maxAudioSeconds` (60 unless configured)
   */
  maxSegmentSeconds?: number | undefined;
  /**
   * Seconds one job takes from its create to its end, for `earliestFinishSeconds`.
   * @default what this client has measured of its own jobs so far, else 120 (the spec: most generations complete in under two minutes)
   */
  jobSeconds?: number | undefined;
}

/** One job of a plan: a video's whole audio, or one segment of long audio. */
export interface PlannedJob {
  /** Where its audio starts in the item's audio (0 unless a later segment). */
  startSeconds: number;
  durationSeconds: number;
  /** Its length rounded up to the billing step. */
  billedSeconds: number;
}

/** One item (or the one video) of a plan. An item with problems makes no job and is billed nothing. */
export interface PlannedItem {
  /** Position in the input, from 0. */
  index: number;
  /** The item's key (a batch's items), when it has a usable one. */
  key: string | undefined;
  /** The audio's length, when validation could measure it. */
  audioSeconds: number | undefined;
  jobs: number;
  billedSeconds: number;
  /** Its jobs, in order: one, or one per segment of audio longer than `maxSegmentSeconds`. */
  segments: PlannedJob[];
  /** What validation found, as `generateBatch` reports it (`BatchInputError`): empty when the item can be made. */
  problems: BatchProblem[];
}

/** What `videos.plan` finds: the jobs a run would make, what they are billed and how soon they can be done. */
export interface VideoPlan {
  /** Jobs the run would create: one per video, one per segment of long audio; items with problems count none. */
  jobs: number;
  /** Seconds of audio the jobs take (the videos last as long). */
  audioSeconds: number;
  /** Seconds billed: each job's length rounded up to the billing step. */
  billedSeconds: number;
  /** The least seconds from the first create to the last job's end, at the create rate and job time assumed. */
  earliestFinishSeconds: number;
  items: PlannedItem[];
  /** What the figures assume. */
  assumes: PlanAssumptions;
}

/** Items planned side by side: each reads only headers and, for long audio, the windows around its cuts. */
const PLAN_CONCURRENCY = 4;
/** The spec's "most generations complete in under two minutes": a job's time until this client has measured its own. */
export const DEFAULT_JOB_SECONDS = 120;

/**
 * @internal The engine of `videos.plan`: every item checked as a batch checks it (or the one video as `generateLong`
 * would make it), long audio planned in the segments its split would make, and the totals. Sends nothing.
 */
export async function planVideos(
  context: JobContext,
  input: Iterable<BatchItem> | AsyncIterable<BatchItem> | VideoCreateParams,
  options: PlanOptions,
): Promise<VideoPlan> {
  const reviewed = isItems(input) ? await reviewItems(input, context.limits) : [await reviewOne(input, context)];
  const cut = {
    maxSegmentSeconds: options.maxSegmentSeconds ?? context.limits.maxAudioSeconds,
    increment: context.billingIncrementSeconds,
  };
  const items = await runPool(reviewed, PLAN_CONCURRENCY, (item) => planItem(item, cut));
  const assumes = assumptions(context, options);
  return { ...planTotals(items, assumes), items, assumes };
}

const isItems = (input: object): input is Iterable<BatchItem> | AsyncIterable<BatchItem> =>
  Symbol.iterator in input || Symbol.asyncIterator in input;

type Reviewed = Omit<ReviewedItem, 'key'> & { key: string | undefined };

/** The one video's inputs, checked as a batch item's are (a plan reads them, so a one-shot stream is refused). */
async function reviewOne(params: VideoCreateParams, context: JobContext): Promise<Reviewed | BatchProblem[]> {
  const inputs = await inputProblems(params, context.limits, 'a plan reads it, and the create would read it again');
  if (inputs.problems.length > 0) return inputs.problems.map((problem) => ({ index: 0, key: undefined, ...problem }));
  return { index: 0, key: undefined, params, long: inputs.long, audioSeconds: inputs.audioSeconds };
}

/** An item's jobs: its whole audio, or the segments of audio over `maxSegmentSeconds`; none for an item with problems. */
async function planItem(item: Reviewed | BatchProblem[], cut: { maxSegmentSeconds: number; increment: number }): Promise<PlannedItem> {
  if (Array.isArray(item)) return refused(item);
  const { index, key, audioSeconds, params } = item;
  let parts = [{ startSeconds: 0, durationSeconds: audioSeconds }];
  if (audioSeconds > cut.maxSegmentSeconds) {
    try {
      parts = await plannedSegments(params.audio_reference, cut.maxSegmentSeconds, cut.increment);
    } catch (error) {
      const issues =
        error instanceof MediaValidationError
          ? error.issues
          : [{ field: 'audio_reference', code: 'unreadable_input', message: (error as Error).message }];
      return refused(issues.map(({ field, code, message }) => ({ index, key, field, code, message })));
    }
  }
  const segments = parts.map((part) => ({ ...part, billedSeconds: billedSeconds(part.durationSeconds, cut.increment) }));
  const billed = segments.reduce((sum, segment) => sum + segment.billedSeconds, 0);
  return { index, key, audioSeconds, jobs: segments.length, billedSeconds: billed, segments, problems: [] };
}

function refused(problems: BatchProblem[]): PlannedItem {
  const [first] = problems;
  return { index: first?.index ?? 0, key: first?.key, audioSeconds: undefined, jobs: 0, billedSeconds: 0, segments: [], problems };
}

/** The rate declared, else the published one; the job time given, else this client's measure, else the spec's. */
function assumptions(context: JobContext, options: PlanOptions): PlanAssumptions {
  const measured = context.limiter.jobMs;
  const [jobSeconds, jobSecondsSource] =
    options.jobSeconds !== undefined
      ? [options.jobSeconds, 'option' as const]
      : measured !== undefined
        ? [measured / 1000, 'measured' as const]
        : [DEFAULT_JOB_SECONDS, 'default' as const];
  return {
    createRate: { ...(context.createRate ?? PUBLISHED_CREATE_RATE) },
    createRateSource: context.createRate ? 'declared' : 'published',
    jobSeconds,
    jobSecondsSource,
    billingIncrementSeconds: context.billingIncrementSeconds,
  };
}
