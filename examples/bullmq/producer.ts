/**
 * Producer: puts one job per row of a CSV on the `videos` queue, to be made by any number of workers (worker.ts).
 *
 *   npx tsx examples/bullmq/producer.ts [items.csv] [limit]
 *
 * The CSV is the one `avatar-video batch` reads (header key,audio,image,video,model; paths relative to the file).
 * Paths are made absolute here: every worker must be able to read them (shared storage, mounted at the same path).
 * `limit` (default 6) is the account's limit on jobs running at once: the queue's global concurrency, shared by
 * every worker on every host. Running the producer again adds nothing for rows whose jobs the queue still holds.
 */
import { createReadStream } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type VideoJobItem, videoJob } from 'avatar-video/bullmq';
import { Queue } from 'bullmq';
import { parse } from 'csv-parse';
import { connection, QUEUE } from './connection.js';

const file = resolve(process.argv[2] ?? fileURLToPath(new URL('./items.csv', import.meta.url)));
const limit = Number(process.argv[3] ?? 6);
/** A CSV row as a queue job; its paths absolute. Throws InvalidArgumentError for a key that is not a safe file name. */
function toJob(row: Record<string, string>) {
  const at = (path: string | undefined) => (path ? resolve(dirname(file), path) : undefined);
  const { key = '', audio, image, video, model } = row;
  const item: VideoJobItem = { key, audio_reference: at(audio) ?? '', image_reference: at(image), video_reference: at(video) };
  if (model) item.model = model as VideoJobItem['model'];
  return videoJob(item);
}

const jobs = [];
for await (const row of createReadStream(file).pipe(parse({ columns: true, trim: true, skip_empty_lines: true }))) jobs.push(toJob(row));

const queue = new Queue(QUEUE, { connection });
try {
  // Every worker of every host together: at most this many video jobs at once, so the service never answers 429.
  await queue.setGlobalConcurrency(limit);
  await queue.addBulk(jobs);
  console.log(`queued ${jobs.length} videos on '${QUEUE}' (at most ${limit} at once); start workers: npx tsx examples/bullmq/worker.ts`);
} finally {
  await queue.close();
}
