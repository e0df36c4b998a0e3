import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { type AvatarVideo, BatchInputError, type BatchItem, OutputPathError } from '../../index.js';
import { shorten } from '../../internal/shorten.js';
import { type BatchFile, readBatchFile, writeReport } from '../batch-file.js';
import { concurrency, NAME_OF_FIELD, withCreateRate } from '../flags.js';
import { planLine, planLines, secondsLeft } from '../plan-lines.js';
import { ExitCode, type Session } from '../session.js';
import { checkAll, type Problem, UsageError } from '../usage-error.js';

type BatchFlags = { outDir?: string; concurrency: number | 'auto'; dryRun?: boolean };

export function registerBatch(program: Command, session: Session): void {
  const command = program
    .command('batch')
    .description(
      'make one video per row of a CSV (header key,audio,image,video,model; paths relative to the file) or JSONL file; every row is checked before anything is created, and running it again resumes',
    )
    .argument('<items>', 'items.csv or items.jsonl')
    .option('--out-dir <dir>', 'folder for <key>.mp4, report.csv and the resume ledger (required, but with --dry-run)')
    .option('--concurrency <n|auto>', "jobs at once: a number, or 'auto' to find the service's limit", concurrency, 'auto')
    .option('--dry-run', 'check every row and print the plan (jobs, billed seconds, the earliest finish) without sending anything');
  withCreateRate(command).action((file: string, flags: BatchFlags) => runBatch(file, flags, session));
}

/**
 * Run the batch of `file`, write report.csv, and set the exit code: 1 when some item failed. The plan comes first: with
 * --dry-run it is the result (exit 2 when a row has problems); otherwise its line is said, and a row's problems stop
 * the batch before anything is created.
 */
async function runBatch(file: string, flags: BatchFlags, session: Session): Promise<void> {
  const [client, read] = await checkAll(
    () => session.client(),
    () => readBatchFile(file),
    () => {
      if (flags.outDir === undefined && !flags.dryRun)
        throw new UsageError([
          { code: 'missing_out_dir', message: 'give --out-dir <dir>: the folder for <key>.mp4, report.csv and the resume ledger' },
        ]);
    },
  );
  // Read once for the plan and the batch both; the items are paths, small to hold.
  const items: BatchItem[] = [];
  for await (const item of read.items) items.push(item);
  const plan = await client.videos.plan(items);
  const problems = plan.items.flatMap((item) => item.problems);
  if (flags.dryRun) {
    const keys = (item: AvatarVideo.PlannedItem) => item.key ?? `item ${item.index + 1}`;
    const lines = planLines(plan, keys, (item) => rowProblems(item.problems, file, read).map((problem) => problem.message));
    const refused = plan.items.filter((item) => item.problems.length > 0).length;
    const fix =
      refused === 0 ? [] : [`${refused} of ${plan.items.length} rows have problems: the batch would create nothing until they are fixed`];
    session.result(plan, [...lines, ...fix]);
    if (refused > 0) session.exitCode = ExitCode.usage;
    return;
  }
  if (problems.length > 0) throw new UsageError(rowProblems(problems, file, read));
  // A rerun over the same folder skips what it saved: the plan, which reads no ledger, counts every row.
  const rerun = existsSync(resolve(flags.outDir as string))
    ? `; rows already saved in ${shorten(flags.outDir as string)} are skipped and cost nothing`
    : '';
  session.note(`${planLine(plan)}${rerun}`);
  await makeBatch(items, plan, { ...flags, outDir: flags.outDir as string }, { client, file, read, session });
}

/** The batch made, once planned: report.csv written, the exit code 1 when some item failed. */
async function makeBatch(
  items: BatchItem[],
  plan: AvatarVideo.VideoPlan,
  flags: BatchFlags & { outDir: string },
  { client, file, read, session }: { client: AvatarVideo; file: string; read: BatchFile; session: Session },
): Promise<void> {
  const outDir = resolve(flags.outDir);
  // Said at once: cleanup after Ctrl-C may outlast the grace period, and the jobs made are in the ledger.
  const onInterrupt = () =>
    session.note(`stopping; run the same command again to resume: jobs already made in ${shorten(outDir)} are not paid for twice`);
  session.signal.addEventListener('abort', onInterrupt, { once: true });
  const left = jobsLeft(plan);
  const summary = await client.videos
    .generateBatch(items, {
      outputDir: outDir,
      concurrency: flags.concurrency,
      signal: session.signal,
      onRunProgress: progressReporter(session, () => secondsLeft(plan, left.jobs, client.createRate)),
      onItem: (result) => {
        left.finished(result.key);
        if (result.status === 'failed') session.note(`failed ${result.key}: ${result.error?.code} ${result.error?.message}`);
      },
    })
    .catch((error: unknown) => {
      if (error instanceof BatchInputError) throw new UsageError(rowProblems(error.problems, file, read));
      if (error instanceof OutputPathError) throw new UsageError([{ code: error.code, message: `--out-dir: ${error.message}` }]);
      throw error;
    })
    .finally(() => session.signal.removeEventListener('abort', onInterrupt));
  const report = join(outDir, 'report.csv');
  await writeReport(report, summary.results);
  const { completed, skipped, failed } = summary;
  session.result({ ...summary, report }, [
    `${completed} completed, ${skipped} already saved, ${failed} failed, of ${summary.results.length}; report: ${report}`,
  ]);
  if (failed > 0) session.exitCode = ExitCode.failed;
}

/** The jobs of the plan's items not finished yet, as items finish (complete, failed or skipped). */
function jobsLeft(plan: AvatarVideo.VideoPlan) {
  const byKey = new Map(plan.items.map((item) => [item.key, item.jobs]));
  const left = {
    jobs: plan.jobs,
    finished: (key: string) => {
      left.jobs -= byKey.get(key) ?? 0;
    },
  };
  return left;
}

/**
 * A bar with done, failed, running and the time left on a terminal; in a log, a line only when an item finishes. The
 * time left is what the create rate lets the jobs not finished take from the gate's next create (`secondsLeft`), not
 * this run's pace so far: under the rate, the first items' pace says little of the rest.
 */
function progressReporter(session: Session, timeLeft: () => number): (progress: AvatarVideo.BatchProgress) => void {
  let finished = -1;
  return ({ done, failed, running, total }) => {
    if (!session.stderr.isTTY && done + failed === finished) return;
    finished = done + failed;
    const eta = done + failed === total ? '' : `, ETA ${formatEta(Math.round(timeLeft()))}`;
    session.progress.update('overall', done + failed, total, `${done} done, ${failed} failed, ${running} running${eta}`);
  };
}

function formatEta(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * The batch's problems as the file's author sees them: by line and column rather than item index and parameter. A
 * file the SDK could not open is said as the CLI found it while reading the row, which names the column.
 */
function rowProblems(problems: AvatarVideo.BatchProblem[], file: string, read: BatchFile): Problem[] {
  return problems.flatMap((problem) => {
    const own = problem.code === 'unreadable_input' ? read.fileProblems.get(problem.index) : undefined;
    return (own ?? [problem]).map((found) => toProblem({ ...problem, ...found }, file, read.lines));
  });
}

/** Which inputs a row gives is a matter of its columns, so it is said in columns; validation's wording names parameters. */
const IN_COLUMNS: Record<string, string> = {
  missing_audio: 'no audio: give the driving audio, a WAV or MP3 file',
  missing_visual_reference: 'no image or video: give a portrait (JPEG or PNG) in image, or a video (MP4 or MOV) in video',
  multiple_visual_references: 'give an image or a video, not both',
};

function toProblem(p: AvatarVideo.BatchProblem, file: string, lines: number[]): Problem {
  const where = `${shorten(file)}:${lines[p.index] ?? `item ${p.index + 1}`}`;
  const column = p.field ? ` (${NAME_OF_FIELD[p.field] ?? p.field})` : '';
  const message = `${where}${p.key ? ` ${p.key}` : ''}${column}: ${IN_COLUMNS[p.code] ?? p.message}`;
  return { index: p.index, key: p.key, ...(p.field ? { field: p.field } : {}), code: p.code, message };
}
