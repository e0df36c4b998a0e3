import { statSync } from 'node:fs';
import { peakRssBytes } from './peak-rss.js';

const MB = 1 << 20;

/**
 * For the download bench's children: run `download` and print one JSON line with its duration, the CPU
 * time it took (all threads), and memory: RSS once started, and the peak over the process's life.
 */
export async function measureDownload(output: string, download: () => Promise<void>): Promise<void> {
  const baseRss = process.memoryUsage().rss;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await download();
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const result = {
    ms,
    bytes: statSync(output).size,
    cpuMs: (user + system) / 1000,
    baseRssMB: baseRss / MB,
    peakRssMB: peakRssBytes() / MB,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
