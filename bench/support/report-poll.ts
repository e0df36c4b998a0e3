/** What one poll child measured: `calls` sequential requests on one kept-alive connection. */
export interface PollRun {
  ms: number;
  /** User + system CPU time of the child over the timed calls. */
  cpuMs: number;
}

/**
 * For the poll bench's children: one untimed `call` opens the kept-alive connection (as a waiting client's
 * first poll does), then `calls` sequential calls are timed; prints one JSON line (a PollRun).
 */
export async function measurePolls(calls: number, call: () => Promise<unknown>): Promise<void> {
  await call();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < calls; i++) await call();
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const result: PollRun = { ms, cpuMs: (user + system) / 1000 };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
