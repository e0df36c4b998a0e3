/**
 * Child of bench/batch.ts and bench/distributed.ts: the loopback mock with a concurrency limit, on its own CPU. Prints its address as
 * one JSON line; each line read on stdin is answered with the mock's counters as one JSON line; exits when
 * stdin closes. Arguments: processingMs, concurrencyLimit, rateLimitFailureRate.
 */
import { createInterface } from 'node:readline';
import { startMockServer } from '../src/testing/index.js';

const [processingMs = 200, concurrencyLimit = 6, rateLimitFailureRate = 0] = process.argv.slice(2).map(Number);
const mock = await startMockServer({ processingMs, concurrencyLimit, rateLimitFailureRate, seed: 12 });
process.stdout.write(`${JSON.stringify({ baseURL: mock.baseURL, apiKey: mock.apiKey })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', () => {
  const videos = mock.state.listVideos();
  const completeIds = videos.filter((v) => v.status === 'COMPLETE').map((v) => v.id);
  const rateLimited = videos.filter((v) => v.status === 'FAILED' && v.error?.code === 'rate_limit_exceeded').length;
  // Creation order (listVideos is newest first): which creates ended FAILED for a rate limit.
  const failedCreates = [...videos]
    .reverse()
    .flatMap((v, index) => (v.status === 'FAILED' && v.error?.code === 'rate_limit_exceeded' ? [index] : []));
  const stats = {
    creates: mock.creates,
    throttled: mock.throttledCreates,
    complete: completeIds.length,
    completeIds,
    rateLimited,
    failedCreates,
  };
  process.stdout.write(`${JSON.stringify(stats)}\n`);
});
lines.on('close', () => {
  void mock.close().then(() => process.exit(0));
});
