import { createReadStream } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CsvError, parse } from 'csv-parse';
import type { BatchItem, BatchItemResult } from '../index.js';
import { writeFileAtomic } from '../internal/atomic-file.js';
import { shorten } from '../internal/shorten.js';
import { MEDIA_FLAGS } from './flags.js';
import { fileProblem, type Problem, UsageError, unreadable } from './usage-error.js';

/** Columns of a batch file (CSV header or JSONL field names) and the create parameter each fills. */
const BATCH_COLUMNS: Record<string, string> = { key: 'key', ...MEDIA_FLAGS, model: 'model' };

/** A batch file being read: its items, and what the CLI learns of each row as it is read (for messages). */
export interface BatchFile {
  items: AsyncIterable<BatchItem>;
  /** The line of the item at each index. */
  lines: number[];
  /** Files of a row that cannot be read, by the row's index, each with its column: said here, where the column is known. */
  fileProblems: Map<number, Problem[]>;
}

/**
 * Open `items.csv` (header `key,audio,image,video,model`) or `items.jsonl` (one object per line with those
 * fields) as a stream of items, with paths relative to the file's folder. Problems of form (an unknown column, a
 * broken line) surface as UsageError while the items are read.
 * @throws UsageError when the file is not a .csv or .jsonl file that can be read.
 */
export async function readBatchFile(path: string): Promise<BatchFile> {
  const extension = extname(path).toLowerCase();
  if (extension !== '.csv' && extension !== '.jsonl') {
    throw new UsageError([{ code: 'unsupported_batch_file', message: `${shorten(path)}: give a .csv or a .jsonl file` }]);
  }
  const missing = await fileProblem(path);
  if (missing) throw new UsageError([{ code: 'unreadable_file', message: missing }]);
  const base = dirname(resolve(path));
  const file: BatchFile = { items: items(), lines: [], fileProblems: new Map() };
  async function* items(): AsyncIterable<BatchItem> {
    const rows = extension === '.csv' ? csvRows(path) : jsonlRows(path);
    for await (const { line, fields } of rows) {
      const item = toItem(fields, base, `${shorten(path)}:${line}`);
      const problems = await unreadableFiles(item);
      if (problems.length > 0) file.fileProblems.set(file.lines.length, problems);
      file.lines.push(line);
      yield item;
    }
  }
  return file;
}

type Row = { line: number; fields: Record<string, unknown> };

async function* csvRows(path: string): AsyncIterable<Row> {
  const parser = parse({
    columns: (header: string[]) => checkColumns(header, shorten(path)),
    bom: true,
    trim: true,
    skip_empty_lines: true,
    info: true,
  });
  // pipe() does not pass on a read error: unhandled, it would end the process.
  createReadStream(path)
    .on('error', (error) => parser.destroy(error))
    .pipe(parser);
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      yield { line: info.lines, fields: record };
    }
  } catch (error) {
    if (error instanceof UsageError) throw error; // from checkColumns
    if (error instanceof CsvError) throw new UsageError([{ code: 'invalid_csv', message: `${shorten(path)}: ${error.message}` }]);
    throw unreadableFile(error, path);
  }
}

async function* jsonlRows(path: string): AsyncIterable<Row> {
  let line = 0;
  try {
    for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY })) {
      line += 1;
      if (text.trim() === '') continue;
      const invalid = (why: string) => new UsageError([{ code: 'invalid_jsonl', message: `${shorten(path)}:${line}: ${why}` }]);
      let fields: unknown;
      try {
        fields = JSON.parse(text);
      } catch (error) {
        throw invalid(`not JSON (${(error as Error).message})`);
      }
      if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw invalid('expected an object');
      checkColumns(Object.keys(fields), `${shorten(path)}:${line}`);
      yield { line, fields: fields as Record<string, unknown> };
    }
  } catch (error) {
    throw error instanceof UsageError ? error : unreadableFile(error, path);
  }
}

const unreadableFile = (error: unknown, path: string) => new UsageError([{ code: 'unreadable_file', message: unreadable(error, path) }]);

function checkColumns(names: string[], where: string): string[] {
  const unknown = names.filter((name) => !(name in BATCH_COLUMNS));
  const problems = unknown.map((name) => ({
    code: 'unknown_column',
    message: `${where}: unknown column '${name}'; the columns are ${Object.keys(BATCH_COLUMNS).join(', ')}`,
  }));
  if (!names.includes('key')) problems.push({ code: 'missing_column', message: `${where}: no 'key' column` });
  if (problems.length > 0) throw new UsageError(problems);
  return names;
}

/** The files of an item that cannot be read, each with its column. */
async function unreadableFiles(item: BatchItem): Promise<Problem[]> {
  const fields = Object.values(MEDIA_FLAGS).filter((field) => typeof item[field] === 'string');
  const problems = await Promise.all(
    fields.map(async (field) => {
      const why = await fileProblem(item[field] as string);
      return why === undefined ? [] : [{ field, code: 'unreadable_file', message: why }];
    }),
  );
  return problems.flat();
}

function toItem(fields: Record<string, unknown>, base: string, where: string): BatchItem {
  const item: Record<string, unknown> = {};
  for (const [column, field] of Object.entries(BATCH_COLUMNS)) {
    const value = fields[column];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') throw new UsageError([{ code: 'invalid_value', message: `${where}: '${column}' must be a string` }]);
    item[field] = column in MEDIA_FLAGS ? resolve(base, value) : value;
  }
  return item as unknown as BatchItem;
}

/** A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
const csvField = (value: string | undefined = '') => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/**
 * Write one row per item: key, status, video id, path, error code and message, and a long item's segment jobs (`;`
 * between). Saved as every file the SDK writes (`writeFileAtomic`): a failure or a crash leaves the old report whole.
 */
export async function writeReport(path: string, results: BatchItemResult[]): Promise<void> {
  await writeFileAtomic(path, async (file) => {
    await file.write(Buffer.from('key,status,video_id,path,error_code,error_message,segment_ids\n'));
    const rows = results.map((r) =>
      [r.key, r.status, r.videoId, r.path, r.error?.code, r.error?.message, r.segmentVideoIds?.join(';')].map(csvField).join(','),
    );
    // In slices, so that a report of many thousand rows is not one huge string.
    for (let i = 0; i < rows.length; i += 1_000) await file.write(Buffer.from(`${rows.slice(i, i + 1_000).join('\n')}\n`));
  });
}
