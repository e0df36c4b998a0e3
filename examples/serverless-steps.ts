/**
 * Generate as steps, for platforms where no process may wait minutes (AWS Lambda with Step Functions, Vercel
 * Workflow, Inngest, Temporal): create, then poll once per invocation, then save. Every step runs here in a
 * process of its own; what one step leaves for the next (the video id and `videos.poll`'s `state`) is JSON in a
 * file, as it would be in a workflow's state. The parent plays the orchestrator: it sleeps `nextPollAfterMs`
 * between steps, as a Step Functions `Wait` state or `step.sleep` would.
 *
 * Against the embedded mock it also waits for a second job of the same length with `waitForCompletion`, and
 * exits 1 unless the steps polled as often as that wait (one more or fewer allowed: a process start is late).
 *
 *   npx tsx examples/serverless-steps.ts
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import AvatarVideo, { type PollState } from 'avatar-video';
import { type MockServer, startMockServer } from 'avatar-video/testing';

/** What the steps hand on, kept in `STATE_FILE`: in a real workflow, the workflow's own state. */
interface Saved {
  videoId: string;
  /** `videos.poll`'s state; null before the first poll. */
  state: PollState | null;
  done?: boolean;
  status?: string;
  nextPollAfterMs?: number;
  /** When the step's process was ready to poll: the parent subtracts the time it took to start from its next sleep. */
  readyAt?: number;
}

const STATE_FILE = 'serverless-steps.json';
const media = new URL('./media/', import.meta.url);
const step = process.argv[2];

if (step) await runStep(step);
else await orchestrate();

/** One step, in its own process, with a client of its own: what a Lambda or a workflow step would run. */
async function runStep(name: string): Promise<void> {
  // The service address and key come from the environment, as they would in a function.
  const client = new AvatarVideo();
  try {
    if (name === 'create') {
      // Inputs are checked locally first: a bad file fails here, before anything is paid for.
      const video = await client.videos.create({
        audio_reference: new URL('speech.wav', media),
        image_reference: new URL('portrait.png', media),
      });
      await save({ videoId: video.id, state: null });
    } else if (name === 'poll') {
      const saved = await load();
      const readyAt = Date.now();
      // One retrieve; `state` carries the schedule from the previous step (none for the first poll).
      const { video, done, nextPollAfterMs, state } = await client.videos.poll(saved.videoId, saved.state ?? undefined);
      console.log(`poll ${state.polls}: ${video.status} ${video.progress ?? 0}%${done ? '' : `, next in ${nextPollAfterMs} ms`}`);
      await save({ videoId: video.id, state, done, status: video.status, nextPollAfterMs, readyAt });
    } else if (name === 'save') {
      const { videoId } = await load();
      const { path, bytes } = await client.videos.download(videoId, 'serverless-steps.mp4');
      console.log(`saved ${path} (${bytes} bytes)`);
    }
  } finally {
    await client.close();
  }
}

/** The workflow: create, poll until done (sleeping between polls, holding no process), save. */
async function orchestrate(): Promise<void> {
  const processingMs = 15_000;
  // No server hint (`pollAfterMs: null`), so the polls are timed from progress, as against most services.
  const mock = process.env.AVATAR_VIDEO_BASE_URL ? undefined : await startMockServer({ processingMs, pollAfterMs: null });
  const env = mock ? { ...process.env, AVATAR_VIDEO_BASE_URL: mock.baseURL, AVATAR_VIDEO_API_KEY: mock.apiKey } : process.env;
  const client = new AvatarVideo({ apiKey: env.AVATAR_VIDEO_API_KEY, baseURL: env.AVATAR_VIDEO_BASE_URL });
  try {
    await child('create', env);
    // The same job length, waited for in one process: what the steps should match.
    const reference = mock ? compareWait(client, mock) : undefined;
    for (;;) {
      const spawnedAt = Date.now();
      await child('poll', env);
      const { done, status, nextPollAfterMs = 0, readyAt = spawnedAt } = await load();
      if (done) {
        if (status !== 'COMPLETE') throw new Error(`the video ended ${status}`);
        break;
      }
      await sleep(Math.max(nextPollAfterMs - (readyAt - spawnedAt), 0));
    }
    const { state, videoId } = await load();
    // Counted before the save, whose own status check is one more retrieve.
    const stepped = mock ? polls(mock, videoId) : state?.polls;
    await child('save', env);
    const waited = await reference;
    if (waited !== undefined) {
      console.log(`polls: ${stepped} in steps, ${waited} in one waitForCompletion`);
      if (Math.abs(Number(stepped) - waited) > 1) throw new Error('the steps did not poll as waitForCompletion does');
    }
  } finally {
    await client.close();
    await mock?.close();
  }
}

/** How many polls `waitForCompletion` makes for a job created now, in one process (on the mock, every job takes as long). */
async function compareWait(client: AvatarVideo, mock: MockServer): Promise<number> {
  const video = await client.videos.create({
    audio_reference: new URL('speech.wav', media),
    image_reference: new URL('portrait.png', media),
  });
  await client.videos.waitForCompletion(video.id);
  return polls(mock, video.id);
}

/** The retrieves of video `id` the mock has answered. */
function polls(mock: MockServer, id: string): number {
  return mock.requests.filter((r) => r.path === `/v1/videos/${id}`).length;
}

/** Run one step as a process of its own, as the platform would start a function; rejects if it fails. */
function child(name: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(import.meta.url);
    const proc = spawn(process.execPath, [...process.execArgv, script, name], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    proc.on('error', reject);
    proc.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`step ${name} exited ${code}`))));
  });
}

async function save(saved: Saved): Promise<void> {
  await writeFile(STATE_FILE, JSON.stringify(saved));
}

async function load(): Promise<Saved> {
  return JSON.parse(await readFile(STATE_FILE, 'utf8')) as Saved;
}
