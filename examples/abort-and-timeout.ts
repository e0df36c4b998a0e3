/**
 * Abort and timeouts: stop a wait, bound a wait, bound one request, and put a deadline on a whole run.
 * Stopping a wait never stops the job: it keeps running on the service and can be awaited again by id.
 *
 *   npx tsx examples/abort-and-timeout.ts
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import AvatarVideo, { APIConnectionTimeoutError, APIUserAbortError, WaitTimeoutError } from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';

const media = new URL('./media/', import.meta.url);
const params = { audio_reference: new URL('speech.wav', media), image_reference: new URL('portrait.png', media) };
const mock = await startMockServer({ processingMs: 1_500 });
const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL });

try {
  // 1. Your own signal (a Ctrl-C handler, a request that went away) stops the wait at once, even mid-sleep.
  const { id } = await client.videos.create(params);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  await client.videos.waitForCompletion(id, { signal: controller.signal }).catch((error) => {
    if (!(error instanceof APIUserAbortError)) throw error;
    console.log(`1. stopped waiting for ${id}; the job carries on`);
  });

  // 2. `waitTimeout` bounds the whole wait; the error carries the last state seen. Waiting again is free.
  const stillRunning = await client.videos.waitForCompletion(id, { waitTimeout: 300, pollInterval: 100 }).catch((error) => {
    if (!(error instanceof WaitTimeoutError)) throw error;
    console.log(`2. gave up after ${error.waitTimeout} ms; last seen ${error.video?.status} at ${error.video?.progress}%`);
    return client.videos.waitForCompletion(id, { pollInterval: 250 });
  });
  console.log(`   waited again: ${stillRunning.status}`);

  // 3. The client's `timeout` bounds each request attempt (default 60 s), per call if you like.
  const silent = createServer(() => {}); // accepts requests and never answers
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  const slowClient = new AvatarVideo({ apiKey: 'k', baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 });
  await slowClient.videos.retrieve(id, { timeout: 200 }).catch((error) => {
    if (!(error instanceof APIConnectionTimeoutError)) throw error;
    console.log(`3. one request timed out: ${error.message}`);
  });
  await slowClient.close();
  silent.closeAllConnections();
  silent.close();

  // 4. A deadline for a whole run (upload, wait, download): AbortSignal.timeout. Nothing partial is left.
  await client.videos.generate(params, { output: 'deadline.mp4', signal: AbortSignal.timeout(500) }).catch((error) => {
    if (!(error instanceof APIUserAbortError)) throw error;
    console.log(`4. the run hit its deadline; deadline.mp4 exists: ${existsSync('deadline.mp4')}`);
  });
} finally {
  await client.close();
  await mock.close();
}
