/**
 * A process of its own, so that the only 'warning' events it hears are the SDK's: it runs, against the mock API at
 * argv[2] with AVATAR_VIDEO_API_KEY, three uses of one AbortSignal by many jobs, in turn —
 * `readme`: the README's `Promise.all` over 12 `generate` calls to files under one signal, the default client;
 * `batch`: a 12-row `generateBatch` under a signal, as the CLI's `batch` runs one (every item's job on that signal);
 * `jobs`: 1,000 `createAndWait` calls under one signal, 64 at once, aborted once 40 have completed: the limiter's
 * queue, the create gate, polls and requests all on the one signal.
 * Prints one JSON line: per scenario, the warnings heard, how the calls settled, and the most 'abort' listeners seen
 * on the signal while they ran (Node 22 and 24 do not warn for an AbortSignal's listeners: that count still shows).
 */

import { getEventListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APIUserAbortError, AvatarVideo } from '../../src/index.js';

const [baseURL] = process.argv.slice(2) as [string];
const media = fileURLToPath(new URL('../../examples/media/', import.meta.url));
const params = { audio_reference: `${media}speech.wav`, image_reference: `${media}portrait.png` };
const fast = { pollInterval: 20, maxPollInterval: 40 };

const warnings: string[] = [];
process.on('warning', (warning) => warnings.push(`${warning.name}: ${warning.message}`));

/** The most 'abort' listeners seen on a signal, at each `sample()`. */
function listenersOn(signal: AbortSignal) {
  const seen = { most: 0, sample: () => (seen.most = Math.max(seen.most, getEventListeners(signal, 'abort').length)) };
  return seen;
}

/** How settled calls ended: completed, aborted (APIUserAbortError), or another failure's message. */
function tally(results: PromiseSettledResult<unknown>[]) {
  const rejected = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  return {
    completed: results.length - rejected.length,
    aborted: rejected.filter((error) => error instanceof APIUserAbortError).length,
    other: [...new Set(rejected.filter((error) => !(error instanceof APIUserAbortError)).map(String))],
  };
}

/** `scenario` with a client of `options`, and the warnings heard while it ran (and a tick after, when Node emits them). */
async function heard<T>(options: ConstructorParameters<typeof AvatarVideo>[0], scenario: (client: AvatarVideo) => Promise<T>) {
  const client = new AvatarVideo({ baseURL, logLevel: 'off', ...options });
  const from = warnings.length;
  try {
    const outcome = await scenario(client);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { ...outcome, warnings: warnings.slice(from) };
  } finally {
    await client.close();
  }
}

const dir = await mkdtemp(join(tmpdir(), 'avatar-shared-signal-'));
try {
  const readme = await heard({}, async (client) => {
    const { signal } = new AbortController();
    const listeners = listenersOn(signal);
    const calls = Array.from({ length: 12 }, (_, i) =>
      client.videos.generate(params, { output: join(dir, `readme-${i}.mp4`), signal, onProgress: listeners.sample, ...fast }),
    );
    return { ...tally(await Promise.allSettled(calls)), listeners: listeners.most };
  });
  const batch = await heard({}, async (client) => {
    const items = Array.from({ length: 12 }, (_, i) => ({ key: `row-${i}`, ...params }));
    const { signal } = new AbortController();
    const listeners = listenersOn(signal);
    const summary = await client.videos.generateBatch(items, {
      outputDir: join(dir, 'batch'),
      signal,
      onRunProgress: listeners.sample,
      ...fast,
    });
    return { completed: summary.completed, failed: summary.failed, listeners: listeners.most };
  });
  const jobs = await heard({ jobConcurrency: 64 }, async (client) => {
    const controller = new AbortController();
    const listeners = listenersOn(controller.signal);
    let done = 0;
    const calls = Array.from({ length: 1000 }, () =>
      client.videos.createAndWait(params, { signal: controller.signal, onProgress: listeners.sample, ...fast }).then((video) => {
        if (++done === 40) controller.abort();
        return video;
      }),
    );
    const settled = tally(await Promise.allSettled(calls));
    return { ...settled, listeners: listeners.most, running: client.jobConcurrency.running, waiting: client.createRate.waiting };
  });
  console.log(JSON.stringify({ readme, batch, jobs }));
} finally {
  await rm(dir, { recursive: true, force: true });
}
