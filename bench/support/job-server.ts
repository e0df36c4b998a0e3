import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { video } from '../../test/helpers/raw-server.js';

/** A job on the simulated API: it finishes `durationMs` after it was added; its polls are recorded. */
export interface SimulatedJob {
  id: string;
  durationMs: number;
  /** `linear`: progress grows evenly with time (an integer percentage, as the spec has it); `null`: never reported. */
  progress: 'linear' | 'null';
  startedAt: number;
  /** When each retrieve of this job arrived, on this process's `performance.now()` clock. */
  polls: number[];
}

/**
 * A tiny API on loopback that answers `GET /v1/videos/:id` from the clock: PROCESSING until the job's
 * duration has passed, then COMPLETE. No poll hints, so the client's own schedule is what is measured.
 */
export async function startJobServer() {
  const jobs = new Map<string, SimulatedJob>();
  const server = createServer((req, res) => {
    const id = /^\/v1\/videos\/(\w+)$/.exec(req.url ?? '')?.[1];
    const job = id === undefined ? undefined : jobs.get(id);
    if (!job) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    const now = performance.now();
    job.polls.push(now);
    const elapsed = now - job.startedAt;
    const done = elapsed >= job.durationMs;
    const progress = done ? 100 : job.progress === 'null' ? null : Math.floor((elapsed / job.durationMs) * 100);
    const body = video(job.id, { status: done ? 'COMPLETE' : 'PROCESSING', progress });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Start a job now. */
    add(id: string, durationMs: number, progress: SimulatedJob['progress']): SimulatedJob {
      const job: SimulatedJob = { id, durationMs, progress, startedAt: performance.now(), polls: [] };
      jobs.set(id, job);
      return job;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** How late the first poll that found the job COMPLETE came, in ms, and how many polls the job took. */
export function measure(job: SimulatedJob): { delay: number; polls: number } {
  const finish = job.startedAt + job.durationMs;
  const seen = job.polls.find((at) => at >= finish);
  if (seen === undefined) throw new Error(`job ${job.id} was never seen COMPLETE`);
  return { delay: seen - finish, polls: job.polls.filter((at) => at <= seen).length };
}
