/**
 * Many waits on one client at once. Time and memory figures for 1,000 jobs are in bench/concurrency.ts;
 * this checks only what must hold whatever the machine: every job ends its own way, over the shared pool.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, expect, it } from 'vitest';
import { AvatarVideo, VideoCancelledError, VideoFailedError } from '../../src/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';

const JOBS = 200;
const POOL = 64; // the SDK Agent's connections per origin

let opened = 0;
const onConnected = () => {
  opened += 1;
};
const closers = useCleanup();
afterEach(async () => {
  unsubscribe('undici:client:connected', onConnected);
});

it(`one client waits on ${JOBS} jobs at once: each ends its own way, over the shared keep-alive pool`, async () => {
  const server = await startMockServer({ processingMs: 300 });
  const client = new AvatarVideo({ apiKey: server.apiKey, baseURL: server.baseURL, logLevel: 'off' });
  closers.push(() => client.close(), server.close);
  subscribe('undici:client:connected', onConnected);

  const ids = Array.from({ length: JOBS }, (_, i) => {
    if (i % 10 === 1) server.enqueueOutcome({ status: 'FAILED', error: { code: 'rate_limit_exceeded', message: 'Slow down' } });
    else if (i % 10 === 2) server.enqueueOutcome({ status: 'CANCELLED' });
    else server.enqueueOutcome({ status: 'COMPLETE' });
    return server.state.createVideo({ model: 'service-avatar-x', generation_mode: 'image_to_video', aspect_ratio: '16:9' }).id;
  });
  const results = await Promise.allSettled(ids.map((id) => client.videos.waitForCompletion(id, { pollInterval: 100 })));

  // Each wait ended as its own job did, whatever the others did at the same time.
  results.forEach((result, i) => {
    if (i % 10 === 1)
      expect(result.status === 'rejected' && result.reason instanceof VideoFailedError && result.reason.video.id).toBe(ids[i]);
    else if (i % 10 === 2) expect(result.status === 'rejected' && result.reason instanceof VideoCancelledError).toBe(true);
    else expect(result.status === 'fulfilled' && result.value.id).toBe(ids[i]);
  });
  // Polls share the client's keep-alive pool instead of a socket each.
  expect(opened).toBeGreaterThan(0);
  expect(opened).toBeLessThan(2 * POOL); // a few more than the pool if the server closes an idle one
  const polled = new Set(server.requests.map((request) => request.path));
  expect(ids.every((id) => polled.has(`/v1/videos/${id}`))).toBe(true);
});
