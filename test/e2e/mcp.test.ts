/**
 * `avatar-video mcp` as an agent's client runs it: the built command over stdio, driven by the MCP SDK's own Client,
 * against the loopback mock started here (jobs of about 3 s).
 */
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { builtPackage } from '../helpers/built.js';
import { expectPlayableMp4 } from '../helpers/ffprobe.js';
import { useCleanup } from '../helpers/fixture.js';
import { connectMcp } from '../helpers/mcp-client.js';
import { writeSpeechWav } from '../helpers/speech.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { bin } = await builtPackage();
const closers = useCleanup();
let mock: MockServer;
let work: string;
let outside: string;

type Structured = Record<string, unknown>;

beforeAll(async () => {
  mock = await startMockServer({ processingMs: 3000 });
  work = await realpath(await mkdtemp(join(tmpdir(), 'avatar-video-mcp-')));
  outside = await realpath(await mkdtemp(join(tmpdir(), 'avatar-video-mcp-outside-')));
  for (const name of ['speech.wav', 'portrait.png']) await copyFile(join(root, 'examples/media', name), join(work, name));
  await copyFile(join(root, 'examples/media/speech.wav'), join(outside, 'speech.wav'));
  closers.push(
    mock.close,
    () => rm(work, { recursive: true, force: true }),
    () => rm(outside, { recursive: true, force: true }),
  );
});

async function connect(env: Record<string, string> = {}) {
  const session = await connectMcp(bin, {
    cwd: work,
    env: { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL, AVATAR_VIDEO_MCP_ROOTS: work, ...env },
  });
  closers.push(session.close);
  // The client checks each result against its tool's output schema once it has listed the tools.
  await session.client.listTools();
  return session;
}

/** Every message the client got, checked: none holds the key, every stdout line parsed as JSON-RPC. */
function expectClean(session: Awaited<ReturnType<typeof connect>>) {
  expect(session.errors).toEqual([]);
  expect(session.received.length).toBeGreaterThan(0);
  for (const text of session.received) {
    expect(JSON.parse(text).jsonrpc).toBe('2.0');
    expect(text).not.toContain(mock.apiKey);
  }
  expect(session.stderr()).not.toContain(mock.apiKey);
}

const sdk = () => new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL });

/** A job that stays PROCESSING with no progress until the test says otherwise. */
async function stuckJob(): Promise<string> {
  const client = sdk();
  closers.push(() => client.close());
  const video = await client.videos.create({ audio_reference: join(work, 'speech.wav'), image_reference: join(work, 'portrait.png') });
  mock.setVideo(video.id, { status: 'PROCESSING', progress: null });
  return video.id;
}

describe('avatar-video mcp over stdio', () => {
  it('lists the seven tools, each with an input and an output schema and annotations', async () => {
    const session = await connect();
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ['download_video', 'generate_video', 'get_video', 'get_video_url', 'list_videos', 'validate_inputs', 'wait_for_video'].sort(),
    );
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(typeof tool.annotations?.readOnlyHint).toBe('boolean');
      expect(typeof tool.annotations?.openWorldHint).toBe('boolean');
    }
    const generate = tools.find((tool) => tool.name === 'generate_video');
    expect(generate?.description).toMatch(/NEVER call generate_video again/);
    expect(generate?.description).toMatch(/no cancel tool/);
    expect(session.client.getInstructions()).toMatch(/never call generate_video again for a job still running/);
    expectClean(session);
  });

  it('validate_inputs checks good and bad files locally, creating nothing', async () => {
    const session = await connect();
    const before = mock.creates;
    const good = await session.client.callTool({
      name: 'validate_inputs',
      arguments: { audio_path: 'speech.wav', image_path: join(work, 'portrait.png') },
    });
    expect(good.isError).toBeFalsy();
    expect(good.structuredContent).toMatchObject({ valid: true, generation_mode: 'image_to_video', issues: [] });
    await writeFile(join(work, 'bad.wav'), 'not audio at all');
    const bad = await session.client.callTool({
      name: 'validate_inputs',
      arguments: { audio_path: 'bad.wav', image_path: 'portrait.png' },
    });
    const result = bad.structuredContent as Structured;
    expect(result.valid).toBe(false);
    expect((result.issues as Structured[]).some((issue) => issue.field === 'audio_reference')).toBe(true);
    expect(mock.creates).toBe(before);
    expectClean(session);
  });

  it('generate_video returns PROCESSING with the id after wait_seconds 1; wait_for_video then saves a readable MP4', async (context) => {
    const session = await connect();
    const before = mock.creates;
    const first = await session.client.callTool({
      name: 'generate_video',
      arguments: { audio_path: 'speech.wav', image_path: 'portrait.png', output_path: 'made.mp4', wait_seconds: 1 },
    });
    expect(first.isError).toBeFalsy();
    const started = first.structuredContent as Structured;
    expect(started.status).toBe('PROCESSING');
    expect(started.video_id).toMatch(/\S/);
    expect(started.next).toMatch(/wait_for_video/);
    expect(mock.creates).toBe(before + 1);

    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const done = await session.client.callTool(
      { name: 'wait_for_video', arguments: { video_id: started.video_id, wait_seconds: 30 } },
      undefined,
      {
        onprogress: (notification) => progress.push(notification),
      },
    );
    const saved = done.structuredContent as Structured;
    expect(saved).toMatchObject({ video_id: started.video_id, status: 'COMPLETE', path: join(work, 'made.mp4') });
    expect(saved.bytes).toBe((await stat(join(work, 'made.mp4'))).size);
    expect(done.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', mimeType: 'video/mp4', uri: `file://${join(work, 'made.mp4')}` }),
    );
    expect(mock.creates).toBe(before + 1);
    // Progress: strictly increasing, out of 100, each naming the job.
    expect(progress.length).toBeGreaterThan(1);
    for (const [index, item] of progress.entries()) {
      expect(item.total).toBe(100);
      expect(item.message).toContain(String(started.video_id));
      if (index > 0) expect(item.progress).toBeGreaterThan(progress[index - 1]?.progress ?? Number.POSITIVE_INFINITY);
    }
    expectClean(session);
    await expectPlayableMp4(context, join(work, 'made.mp4'));
  });

  it('download_video: a job still running is not_ready (wait_for_video next, no file); a COMPLETE one is saved, its progress named COMPLETE', async () => {
    const session = await connect();
    const id = await stuckJob();
    const early = await session.client.callTool({ name: 'download_video', arguments: { video_id: id, output_path: 'early.mp4' } });
    expect(early.isError).toBe(true);
    expect(JSON.stringify(early.content)).toMatch(new RegExp(`not_ready[\\s\\S]*wait_for_video with video_id ${id}`));
    await expect(stat(join(work, 'early.mp4'))).rejects.toThrow();
    mock.setVideo(id, { status: 'COMPLETE', progress: 100 });
    const progress: Array<{ message?: string }> = [];
    const saved = await session.client.callTool(
      { name: 'download_video', arguments: { video_id: id, output_path: 'later.mp4' } },
      undefined,
      { onprogress: (notification) => progress.push(notification) },
    );
    expect(saved.structuredContent).toEqual({
      video_id: id,
      path: join(work, 'later.mp4'),
      bytes: (await stat(join(work, 'later.mp4'))).size,
      content_type: 'video/mp4',
    });
    for (const item of progress) expect(item.message).toContain(`video ${id}: COMPLETE`);
    expectClean(session);
  });

  it('sends a heartbeat at most 10 s apart while a job shows no progress', async () => {
    const session = await connect();
    const id = await stuckJob();
    const times: number[] = [];
    const values: number[] = [];
    const started = Date.now();
    const result = await session.client.callTool({ name: 'wait_for_video', arguments: { video_id: id, wait_seconds: 12 } }, undefined, {
      onprogress: (notification) => {
        times.push(Date.now());
        values.push(notification.progress);
      },
    });
    expect(result.structuredContent).toMatchObject({ video_id: id, status: 'PROCESSING', next: expect.stringMatching(/wait_for_video/) });
    const gaps = [started, ...times, Date.now()].slice(1).map((time, index, all) => time - (index === 0 ? started : (all[index - 1] ?? 0)));
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(10_000);
    for (let index = 1; index < values.length; index++)
      expect(values[index]).toBeGreaterThan(values[index - 1] ?? Number.POSITIVE_INFINITY);
    expectClean(session);
  }, 30_000);

  it('a call cancelled mid-wait stops polling at once, leaves the job running, and the job stays findable', async () => {
    const session = await connect();
    const id = await stuckJob();
    const controller = new AbortController();
    const call = session.client.callTool({ name: 'wait_for_video', arguments: { video_id: id, wait_seconds: 20 } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(),
    });
    await expect(call).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const polls = () => mock.requests.filter((request) => request.path === `/v1/videos/${id}`).length;
    const after = polls();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(polls()).toBe(after);
    expect(mock.getVideo(id)?.status).toBe('PROCESSING');
    const listed = await session.client.callTool({ name: 'list_videos', arguments: { limit: 100 } });
    expect(((listed.structuredContent as Structured).videos as Structured[]).map((video) => video.video_id)).toContain(id);
    const tools = await session.client.listTools();
    expect(tools.tools.find((tool) => tool.name === 'get_video')?.description).toContain(id);
    expectClean(session);
  });

  it('refuses a path outside the roots, a symlink escaping them, a folder, an existing output without overwrite and an output in a file', async () => {
    const session = await connect();
    const before = mock.creates;
    await symlink(join(outside, 'speech.wav'), join(work, 'escape.wav')).catch(() => {});
    const call = (args: Structured) =>
      session.client.callTool({ name: 'generate_video', arguments: { image_path: 'portrait.png', ...args } });
    const refused = async (args: Structured, pattern: RegExp) => {
      const result = await call(args);
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(pattern);
    };
    await refused({ audio_path: join(outside, 'speech.wav') }, /outside the allowed roots/);
    await refused({ audio_path: 'escape.wav' }, /outside the allowed roots/);
    await mkdir(join(work, 'folder.wav'), { recursive: true });
    await refused({ audio_path: 'folder.wav' }, /not a file/);
    await refused({ audio_path: 'data:audio/wav;base64,AAAA' }, /local file path/);
    await writeFile(join(work, 'taken.mp4'), 'already here');
    await refused({ audio_path: 'speech.wav', output_path: 'taken.mp4' }, /already exists.*overwrite: true/);
    expect(await readFile(join(work, 'taken.mp4'), 'utf8')).toBe('already here');
    // A "folder" that is a file: a save bound to fail is refused before the paid create, as the library's generate does.
    await refused({ audio_path: 'speech.wav', output_path: 'taken.mp4/video.mp4' }, /is a file, not a folder/);
    expect(mock.creates).toBe(before);
    expectClean(session);
  });

  it('long audio needs allow_segments; a call cut short by its wait resumes when made again, paying for no job twice', async (context) => {
    const session = await connect();
    await writeSpeechWav(join(work, 'long.wav'), 75);
    const args = { audio_path: 'long.wav', image_path: 'portrait.png', output_path: 'long.mp4' };
    const refused = await session.client.callTool({ name: 'generate_video', arguments: args });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/allow_segments/);
    const before = mock.creates;
    const first = await session.client.callTool({
      name: 'generate_video',
      arguments: { ...args, allow_segments: true, wait_seconds: 1.5 },
    });
    const started = first.structuredContent as Structured;
    expect(started).toMatchObject({ status: 'PROCESSING', next: expect.stringMatching(/generate_video again with the same arguments/) });
    const made = mock.creates - before;
    expect(made).toBeGreaterThan(0);
    const second = await session.client.callTool({
      name: 'generate_video',
      arguments: { ...args, allow_segments: true, wait_seconds: 40 },
    });
    const done = second.structuredContent as Structured;
    expect(done).toMatchObject({ status: 'COMPLETE', path: join(work, 'long.mp4') });
    const segments = done.segment_ids as string[];
    expect(segments.length).toBeGreaterThanOrEqual(2);
    // Every segment was paid for once: the jobs of the first call were taken up, not made again.
    expect(mock.creates - before).toBe(segments.length);
    expect(segments).toEqual(expect.arrayContaining(started.segment_ids as string[]));
    expectClean(session);
    await expectPlayableMp4(context, join(work, 'long.mp4'));
  }, 60_000);

  it('get_video_url gives the signed address, described as a secret that expires, and no key', async () => {
    const session = await connect();
    const client = sdk();
    closers.push(() => client.close());
    const video = await client.videos.create({ audio_reference: join(work, 'speech.wav'), image_reference: join(work, 'portrait.png') });
    mock.setVideo(video.id, { status: 'COMPLETE', progress: 100 });
    const result = await session.client.callTool({ name: 'get_video_url', arguments: { video_id: video.id } });
    expect((result.structuredContent as Structured).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const tools = await session.client.listTools();
    expect(tools.tools.find((tool) => tool.name === 'get_video_url')?.description).toMatch(/SECRET.*EXPIRES/s);
    expectClean(session);
  });
});
