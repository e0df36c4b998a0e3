import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const MOCK = fileURLToPath(new URL('../batch-mock.ts', import.meta.url));

/** The mock's counters (bench/batch-mock.ts). */
export interface MockStats {
  creates: number;
  /** Creates refused with 429. */
  throttled: number;
  complete: number;
  completeIds: string[];
  /** Jobs that ended FAILED for a rate limit. */
  rateLimited: number;
  /** Which creates (0 = the first) made a job that ended FAILED for a rate limit. */
  failedCreates: number[];
}

/** Start bench/batch-mock.ts, a mock capped at `limit` jobs at once, in a process of its own. */
export async function spawnMock(processingMs: number, limit: number, failureRate: number) {
  const mock = spawn(TSX, [MOCK, String(processingMs), String(limit), String(failureRate)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: mock.stdout })[Symbol.asyncIterator]();
  const { baseURL, apiKey } = JSON.parse((await lines.next()).value as string) as { baseURL: string; apiKey: string };
  return {
    baseURL,
    apiKey,
    async stats(): Promise<MockStats> {
      mock.stdin.write('stats\n');
      return JSON.parse((await lines.next()).value as string) as MockStats;
    },
    async stop(): Promise<void> {
      const exited = once(mock, 'exit');
      mock.stdin.end();
      await exited;
    },
  };
}
