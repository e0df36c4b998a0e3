/**
 * The tracing channels' payloads (src/internal/tracing.ts) for one `generate` whose create is answered 429 once and
 * whose download is cut mid-way and resumed, asserted in full: the content request, its redirect and each file-host
 * exchange included, with no key and no signed address.
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { AvatarVideo, RateLimitError } from '../../src/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { fakeMp4 } from '../helpers/fake-mp4.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const KEY = 'sk-trace-secret-123';
const SIG = 'sig=s3cr3t-signature';
const BODY = fakeMp4(1 << 20);
const CUT = 300_000;
const NAMES = ['request', 'job', 'download', 'batch-item'];
const EVENTS = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const;

const closers = useCleanup();
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every event of every channel, in order, with its payload object (read once the call is over). */
function record() {
  const seen: { channel: string; event: string; payload: Record<string, unknown> }[] = [];
  for (const name of NAMES) {
    const handlers = Object.fromEntries(
      EVENTS.map((event) => [
        event,
        (payload: unknown) => seen.push({ channel: name, event, payload: payload as Record<string, unknown> }),
      ]),
    );
    const channel = diagnostics_channel.tracingChannel(`avatar-video:${name}`);
    channel.subscribe(handlers as never);
    closers.push(async () => channel.unsubscribe(handlers as never));
  }
  return seen;
}

/** An API whose first create is refused 429 and whose content redirects to a signed address; a host that cuts the first body. */
async function servers() {
  const host = await rawServer((req, res, n) => {
    const start = n === 0 ? 0 : Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
    const headers: Record<string, string> = { 'content-type': 'video/mp4', etag: '"v1"', 'content-length': String(BODY.length - start) };
    if (start > 0) headers['content-range'] = `bytes ${start}-${BODY.length - 1}/${BODY.length}`;
    res.writeHead(start > 0 ? 206 : 200, headers);
    if (n > 0) return void res.end(BODY.subarray(start));
    res.write(BODY.subarray(0, CUT), () => res.destroy());
  });
  let creates = 0;
  const api = await rawServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST' && creates++ === 0)
        return json(res, 429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '0', 'x-request-id': 'req_429' });
      if (req.method === 'POST') return json(res, 201, video('vid_1'), { 'x-request-id': 'req_create' });
      if (req.url === '/v1/videos/vid_1')
        return json(res, 200, video('vid_1', { status: 'COMPLETE', progress: 100 }), { 'x-request-id': 'req_poll' });
      res.writeHead(302, { location: `${host.url}/files/vid_1.mp4?${SIG}` });
      res.end();
    });
  });
  closers.push(host.close, api.close);
  return { host, api };
}

it('publishes a generate with one 429 and one resumed download, in full, with no key or signed query', async () => {
  const { api, host } = await servers();
  const seen = record();
  const client = new AvatarVideo({ apiKey: KEY, baseURL: api.url, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  closers.push(() => client.close());
  dir = await mkdtemp(join(tmpdir(), 'avatar-trace-'));
  const params = { audio_reference: wav(2), image_reference: mockFixture('portrait.png') };
  const result = await client.videos.generate(params, { output: join(dir, 'out.mp4'), pollInterval: 10 });
  expect(result.bytes).toBe(BODY.length);
  expect(host.requests).toHaveLength(2);

  const job = { operation: 'generate', videoId: 'vid_1', outcome: 'COMPLETE', polls: 1, jobLimit: 2 };
  const apiHost = new URL(api.url).host;
  const fileHost = new URL(host.url).host;
  const request = (method: string, route: string, attempt: number, status: number, requestId: string | undefined, at = apiHost) =>
    expect.objectContaining({
      method,
      route,
      origin: at === apiHost ? 'api' : 'file-host',
      host: at,
      attempt,
      status,
      requestId,
      job: expect.objectContaining(job),
    });
  const throttled = seen.find((s) => s.channel === 'request' && s.event === 'error')?.payload;
  expect(throttled?.error).toBeInstanceOf(RateLimitError);
  // diagnostics_channel sets `result` (undefined: tracing.ts keeps answers out) or `error` on each payload.
  for (const { payload } of seen) if ('result' in payload && payload.result === undefined) delete payload.result;
  const payloads = seen.map(({ channel, event, payload }) => [channel, event, payload]);
  const first = request('POST', '/v1/videos', 1, 429, 'req_429');
  // The job runner, not the transport, sends a refused create again: a request of its own, its attempt 1.
  const second = request('POST', '/v1/videos', 1, 201, 'req_create');
  const poll = request('GET', '/v1/videos/{id}', 1, 200, 'req_poll');
  const download = { videoId: 'vid_1', bytes: BODY.length, resumes: 1, restarts: 0, job: expect.objectContaining(job) };
  // The download: the content request's redirect, the file host's first (cut) answer, the resume straight at the host.
  const content = request('GET', '/v1/videos/{id}/content', 1, 302, undefined);
  const file = request('GET', '{file}', 1, 200, undefined, fileHost);
  const resume = request('GET', '{file}', 1, 206, undefined, fileHost);
  const traced = (payload: unknown) =>
    ['start', 'end', 'asyncStart', 'asyncEnd'].map((event) => ['request', event, payload] as [string, string, unknown]);
  expect(payloads).toEqual([
    // `end` follows `start` at once: it marks the synchronous part of a traced promise.
    ['job', 'start', expect.objectContaining(job)],
    ['job', 'end', expect.objectContaining(job)],
    ['request', 'start', first],
    ['request', 'end', first],
    ['request', 'error', first],
    ['request', 'asyncStart', first],
    ['request', 'asyncEnd', first],
    ['request', 'start', second],
    ['request', 'end', second],
    ['request', 'asyncStart', second],
    ['request', 'asyncEnd', second],
    ['request', 'start', poll],
    ['request', 'end', poll],
    ['request', 'asyncStart', poll],
    ['request', 'asyncEnd', poll],
    ['download', 'start', download],
    ['download', 'end', download],
    ...traced(content),
    ...traced(file),
    ...traced(resume),
    ['download', 'asyncStart', download],
    ['download', 'asyncEnd', download],
    ['job', 'asyncStart', expect.objectContaining(job)],
    ['job', 'asyncEnd', expect.objectContaining(job)],
  ]);
  // In full: each payload holds exactly its documented fields (plus `error`, set by diagnostics_channel).
  const keys = (channel: string) => [
    ...new Set(seen.filter((s) => s.channel === channel).map((s) => Object.keys(s.payload).sort().join())),
  ];
  expect(keys('job')).toEqual(['jobLimit,operation,outcome,polls,videoId']);
  expect(keys('download')).toEqual(['bytes,job,restarts,resumes,videoId']);
  expect(keys('request').sort()).toEqual([
    'attempt,error,host,job,method,origin,requestId,route,status',
    'attempt,host,job,method,origin,requestId,route,status',
  ]);
  const text = inspect(seen, { depth: 8 });
  expect(text).not.toContain(KEY);
  expect(text).not.toContain('sig=');
  expect(text).not.toContain(host.url);
});

it('publishes each batch item with its key, status and video id, its job (requests and download under it)', async () => {
  const mock = await startMockServer({ processingMs: 100 });
  closers.push(() => mock.close());
  const seen = record();
  const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
  closers.push(() => client.close());
  dir = await mkdtemp(join(tmpdir(), 'avatar-trace-'));
  const item = { key: 'intro', audio_reference: wav(1), image_reference: mockFixture('portrait.png') };
  const summary = await client.videos.generateBatch([item], { outputDir: dir, pollInterval: 20 });
  const videoId = summary.results[0]?.videoId;
  expect(videoId).toEqual(expect.any(String));
  const items = seen.filter((s) => s.channel === 'batch-item');
  expect(items.map((s) => s.event)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
  expect(items[0]?.payload).toEqual({ key: 'intro', status: 'complete', videoId, result: undefined });
  const jobs = seen.filter((s) => s.channel === 'job');
  expect(jobs.map((s) => s.event)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
  const job = jobs[0]?.payload;
  expect(job).toEqual({
    operation: 'batch-item',
    videoId,
    outcome: 'COMPLETE',
    polls: expect.any(Number),
    jobLimit: expect.any(Number),
    result: undefined,
  });
  expect(job?.polls).toBeGreaterThan(0);
  const requests = seen.filter((s) => s.channel === 'request' && s.event === 'start').map((s) => s.payload);
  expect(requests.length).toBeGreaterThan(1);
  expect(requests.every((r) => r.job === job)).toBe(true);
  const download = seen.find((s) => s.channel === 'download')?.payload;
  expect(download).toEqual({ videoId, bytes: expect.any(Number), resumes: 0, restarts: 0, job, result: undefined });
  expect(inspect(seen, { depth: 8 })).not.toContain('sig=');
});
