import { open } from 'node:fs/promises';
import type { BatchItemResult } from '../index.js';

const HEADER = ['key', 'status', 'video_id', 'path', 'error_code', 'error_message', 'segment_ids'];

/** A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
function field(value: string | undefined): string {
  const text = value ?? '';
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Write one row per item: key, status, video id, path, error code and message, and a long item's segment jobs (`;` between). */
export async function writeReport(path: string, results: BatchItemResult[]): Promise<void> {
  const file = await open(path, 'w');
  try {
    await file.write(`${HEADER.join(',')}\n`);
    const rows = results.map((r) =>
      [r.key, r.status, r.videoId, r.path, r.error?.code, r.error?.message, r.segmentVideoIds?.join(';')].map(field).join(','),
    );
    // In slices, so that a report of many thousand rows is not one huge string.
    for (let i = 0; i < rows.length; i += 1_000) await file.write(`${rows.slice(i, i + 1_000).join('\n')}\n`);
  } finally {
    await file.close();
  }
}
