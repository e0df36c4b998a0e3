import { peakRssBytes } from './support/peak-rss.js';

/** Decimal megabytes, as the 150 MB target is stated. */
const MB = 1e6;

/** What one upload child reports: one JSON line on stdout. */
export interface UploadRun {
  /** From the call to the parsed 200 response. */
  ms: number;
  /** CPU time of the whole process (all threads) over the upload. */
  cpuMs: number;
  /** RSS once started (modules loaded), and the peak over the process's life. */
  baseRssMB: number;
  peakRssMB: number;
  /** The id the server answered with: proof the response was read. */
  id: string;
}

/** For bench/upload.ts's children: time `upload` and print an {@link UploadRun} as one JSON line. */
export async function measureUpload(upload: () => Promise<{ id: string }>): Promise<void> {
  const baseRss = process.memoryUsage().rss;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { id } = await upload();
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const result: UploadRun = {
    ms,
    cpuMs: (user + system) / 1000,
    baseRssMB: baseRss / MB,
    peakRssMB: peakRssBytes() / MB,
    id,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
