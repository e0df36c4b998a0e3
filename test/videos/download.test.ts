import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APIUserAbortError,
  AvatarVideo,
  AvatarVideoError,
  DownloadIntegrityError,
  NotFoundError,
  VideoNotReadyError,
} from '../../src/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { box, fakeMp4, ftyp } from '../helpers/fake-mp4.js';
import { useCleanup } from '../helpers/fixture.js';
import { type Handler, json, rawServer, video } from '../helpers/raw-server.js';
import { SENDERS } from '../helpers/senders.js';

describe.each(SENDERS)('over $name', ({ via }) => {
  const KEY = 'sk-download-secret-123';
  const BODY = fakeMp4(3 << 20);
  const ETAG = '"v1"';
  const MiB = 1 << 20;
  const OLD = 'the file that was here before';

  let dir: string;
  const closers = useCleanup();
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'avatar-download-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
  });

  const leftovers = async () => (await readdir(dir)).filter((name) => name.endsWith('.part'));

  interface FileOptions {
    /** Honour `Range: bytes=N-`. */
    ranges?: boolean;
    etag?: string;
    lastModified?: string;
    /** Send this many body bytes, then drop the connection. */
    dropAfter?: number;
    /** Send this many body bytes, then go silent. */
    stallAfter?: number;
    /** Serve at most this many bytes per 206 response. */
    maxRange?: number;
    /** Override the Content-Range header of a 206. */
    contentRange?: string;
  }

  /** Serve BODY the way a file host does, or misbehave as told. */
  function sendFile(req: IncomingMessage, res: ServerResponse, options: FileOptions = {}) {
    const { ranges = true, etag = ETAG, lastModified } = options;
    const asked = ranges ? /^bytes=(\d+)-$/.exec(req.headers.range ?? '') : null;
    const ifRange = req.headers['if-range'];
    const start = asked && (ifRange === undefined || ifRange === etag || ifRange === lastModified) ? Number(asked[1]) : 0;
    const end = Math.min(BODY.length, options.maxRange && asked ? start + options.maxRange : BODY.length);
    const headers: Record<string, string> = { 'content-type': 'video/mp4', 'content-length': String(end - start) };
    if (etag) headers.etag = etag;
    if (lastModified) headers['last-modified'] = lastModified;
    if (asked && start > 0) headers['content-range'] = options.contentRange ?? `bytes ${start}-${end - 1}/${BODY.length}`;
    res.writeHead(asked && start > 0 ? 206 : 200, headers);
    const cut = options.dropAfter ?? options.stallAfter;
    if (cut === undefined) return void res.end(BODY.subarray(start, end));
    res.write(BODY.subarray(start, start + cut), () => {
      if (options.dropAfter !== undefined) res.destroy();
    });
  }

  /** An API origin that redirects content to a file host on another origin, signing each URL anew; `lines` gets the info log. */
  async function origins(host: Handler, lines?: string[]) {
    const cdn = await rawServer(host);
    let signatures = 0;
    const api = await rawServer((req, res) => {
      if (req.url === '/v1/videos/vid_1') return json(res, 200, video('vid_1', { status: 'COMPLETE', progress: 100 }));
      if (req.url === '/v1/videos/vid_1/content') {
        res.writeHead(302, { location: `${cdn.url}/files/vid_1.mp4?sig=${++signatures}` });
        return void res.end();
      }
      json(res, 404, { error: { code: 'not_found', message: 'no' } });
    });
    const logger = { debug() {}, info: (line: string) => lines?.push(line), warn() {}, error() {} };
    const log = lines ? { logger, logLevel: 'info' as const } : { logLevel: 'off' as const };
    const client = new AvatarVideo({ ...via, apiKey: KEY, baseURL: api.url, maxRetryDelay: 20, ...log });
    closers.push(() => client.close(), api.close, cdn.close);
    const contentRequests = () => api.requests.filter((r) => r.url.endsWith('/content')).length;
    return { api, cdn, client, contentRequests };
  }

  describe('download through the mock', () => {
    it('refuses a video that is not COMPLETE without asking for its content', async () => {
      const server = await startMockServer({ clock: 'manual' });
      const client = new AvatarVideo({ ...via, apiKey: server.apiKey, baseURL: server.baseURL, logLevel: 'off' });
      closers.push(() => client.close(), server.close);
      const job = server.state.createVideo({ model: null, generation_mode: 'image_to_video', aspect_ratio: '16:9' });
      const target = join(dir, 'out.mp4');
      await expect(client.videos.download(job.id, target)).rejects.toBeInstanceOf(VideoNotReadyError);
      // A stale PROCESSING object is checked again, not trusted.
      const error = await client.videos.download({ ...job, status: 'PROCESSING' }, target).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VideoNotReadyError);
      expect((error as VideoNotReadyError).video.id).toBe(job.id);
      expect(server.requests.map((r) => r.path)).toEqual([`/v1/videos/${job.id}`, `/v1/videos/${job.id}`]);
      expect(await readdir(dir)).toEqual([]);
    });

    it('follows the redirect without the key, skipping the retrieve for a COMPLETE video, and replaces the old file', async () => {
      const server = await startMockServer({ processingMs: 0 });
      const client = new AvatarVideo({ ...via, apiKey: server.apiKey, baseURL: server.baseURL, logLevel: 'off' });
      closers.push(() => client.close(), server.close);
      const done = await client.videos.retrieve(server.state.createVideo({ model: null, generation_mode: null, aspect_ratio: '9:16' }).id);
      const target = join(dir, 'out.mp4');
      await writeFile(target, OLD);
      const before = server.requests.length;
      const progress: number[] = [];
      const result = await client.videos.download(done, target, { onDownloadProgress: ({ bytes }) => progress.push(bytes) });
      const saved = await readFile(target);
      expect(result).toEqual({ path: target, bytes: saved.byteLength, contentType: 'video/mp4' });
      expect(saved.subarray(4, 8).toString('latin1')).toBe('ftyp');
      expect(progress.at(-1)).toBe(saved.byteLength);
      const sent = server.requests.slice(before);
      expect(sent.map((r) => [r.origin, r.hasApiKey])).toEqual([
        ['api', true],
        ['cdn', false],
      ]);
      expect(sent[0]?.path).toBe(`/v1/videos/${done.id}/content`);
      expect(await leftovers()).toEqual([]);
    });
  });

  describe('resuming', () => {
    it('resumes a dropped connection with Range and If-Range at the file host, never sending the key there', async () => {
      const lines: string[] = [];
      const { cdn, client, contentRequests } = await origins((req, res, n) => sendFile(req, res, n === 0 ? { dropAfter: MiB } : {}), lines);
      const target = join(dir, 'out.mp4');
      const result = await client.videos.download('vid_1', target);
      expect(result.bytes).toBe(BODY.length);
      expect((await readFile(target)).equals(BODY)).toBe(true);
      expect(cdn.requests).toHaveLength(2);
      expect(cdn.requests[1]?.headers.range).toBe(`bytes=${MiB}-`);
      expect(cdn.requests[1]?.headers['if-range']).toBe(ETAG);
      expect(cdn.requests.every((r) => r.headers['x-api-key'] === undefined)).toBe(true);
      expect(contentRequests()).toBe(1);
      // One sentence per step, the cause's own period kept: no `(UND_ERR_SOCKET).; resuming`.
      const host = new URL(cdn.url).host.replaceAll('.', '\\.');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^\\[avatar-video\\] download of video vid_1: Connection error at the file host ${host}: [^;]+\\. Resuming at byte ${MiB}\\.$`,
        ),
      );
    });

    it('restarts cleanly from zero when the host ignores Range, and logs a restart, not a resume', async () => {
      const lines: string[] = [];
      const { cdn, client } = await origins(
        (req, res, n) => sendFile(req, res, n === 0 ? { dropAfter: MiB, ranges: false } : { ranges: false }),
        lines,
      );
      const target = join(dir, 'out.mp4');
      const progress: number[] = [];
      await client.videos.download('vid_1', target, { onDownloadProgress: ({ bytes }) => progress.push(bytes) });
      expect((await readFile(target)).equals(BODY)).toBe(true);
      expect(cdn.requests[1]?.headers.range).toBe(`bytes=${MiB}-`);
      expect(progress.some((bytes, i) => i > 0 && bytes < (progress[i - 1] as number))).toBe(true);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^\[avatar-video\] download of video vid_1: Connection error at the file host [^;]+\. The file host sent the whole file again: restarting from byte 0\.$/,
      );
    });

    it('takes Last-Modified as the If-Range validator, and asks again when a 206 carries only part of the rest', async () => {
      const lastModified = 'Wed, 21 Oct 2026 07:28:00 GMT';
      const { cdn, client } = await origins((req, res, n) =>
        sendFile(req, res, { etag: 'W/"weak"', lastModified, maxRange: MiB, ...(n === 0 ? { dropAfter: MiB / 2 } : {}) }),
      );
      const target = join(dir, 'out.mp4');
      await client.videos.download('vid_1', target);
      expect((await readFile(target)).equals(BODY)).toBe(true);
      expect(cdn.requests.map((r) => r.headers.range)).toEqual([
        undefined,
        `bytes=${MiB / 2}-`,
        `bytes=${MiB * 1.5}-`,
        `bytes=${MiB * 2.5}-`,
      ]);
      expect(cdn.requests.slice(1).every((r) => r.headers['if-range'] === lastModified)).toBe(true);
    });

    it.each([
      ['a weak ETag alone', { etag: 'W/"weak"' }],
      ['no validator at all', { etag: '' }],
    ])('starts over from byte 0, without Range, after a drop when the first answer had %s', async (_case, validators) => {
      // A range request would be answered from another file: a resume here would splice two files.
      const other = fakeMp4(BODY.length);
      const lines: string[] = [];
      const { cdn, client } = await origins((req, res, n) => {
        if (req.headers.range)
          return void res.writeHead(206, { 'content-range': `bytes 1-${other.length - 1}/${other.length}` }).end(other.subarray(1));
        sendFile(req, res, { ...validators, ...(n === 0 ? { dropAfter: MiB } : {}) });
      }, lines);
      const target = join(dir, 'out.mp4');
      await client.videos.download('vid_1', target);
      expect((await readFile(target)).equals(BODY)).toBe(true);
      expect(cdn.requests.map((r) => r.headers.range)).toEqual([undefined, undefined]);
      // No range was asked for: a restart, not the host sending the whole file again.
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/\(UND_ERR_SOCKET\)\. Restarting from byte 0\.$/);
    });

    it('gives a stalled body up after its own idle limit, a quarter of the timeout, and resumes it', async () => {
      const lines: string[] = [];
      const { cdn, client } = await origins((req, res, n) => sendFile(req, res, n === 0 ? { stallAfter: MiB } : {}), lines);
      const target = join(dir, 'out.mp4');
      // The headers came at once, then nothing: given up after 500 ms of silence, not the 2000 ms timeout.
      await client.videos.download('vid_1', target, { timeout: 2_000 });
      expect((await readFile(target)).equals(BODY)).toBe(true);
      expect(cdn.requests[1]?.headers.range).toBe(`bytes=${MiB}-`);
      const host = new URL(cdn.url).host;
      expect(lines).toEqual([
        `[avatar-video] download of video vid_1: The answer's body stalled at the file host ${host}: no data for 500 ms. Resuming at byte ${MiB}.`,
      ]);
    });

    it('resumes a body that stalls past the timeout', async () => {
      const { cdn, client } = await origins((req, res, n) => sendFile(req, res, n === 0 ? { stallAfter: MiB } : {}));
      const target = join(dir, 'out.mp4');
      await client.videos.download('vid_1', target, { timeout: 300 });
      expect((await readFile(target)).equals(BODY)).toBe(true);
      expect(cdn.requests[1]?.headers.range).toBe(`bytes=${MiB}-`);
    });

    it('asks the API for a fresh URL when the signed one has expired, keeping the range', async () => {
      const { cdn, client, contentRequests } = await origins((req, res, n) => {
        if (n === 0) return sendFile(req, res, { dropAfter: MiB });
        if (req.url?.endsWith('sig=1')) return json(res, 403, { error: { code: 'expired', message: 'Signature expired' } });
        sendFile(req, res);
      });
      const target = join(dir, 'out.mp4');
      await client.videos.download('vid_1', target);
      expect((await readFile(target)).equals(BODY)).toBe(true);
      expect(contentRequests()).toBe(2);
      expect(cdn.requests.map((r) => [r.url, r.headers.range, r.headers['if-range']])).toEqual([
        ['/files/vid_1.mp4?sig=1', undefined, undefined],
        ['/files/vid_1.mp4?sig=1', `bytes=${MiB}-`, ETAG],
        ['/files/vid_1.mp4?sig=2', `bytes=${MiB}-`, ETAG],
      ]);
      expect(cdn.requests.every((r) => r.headers['x-api-key'] === undefined)).toBe(true);
    });
  });

  /** One representation of the file as a host answers with it: the bytes and the validator headers. */
  interface Representation {
    body: Buffer;
    headers: Record<string, string>;
  }

  /**
   * A file host that ignores If-Range: the first answer is `first`, cut after CUT bytes; a range request gets
   * `partial` from the asked offset (with a Content-Range that fits our offset and total); a request without
   * Range gets `whole`.
   */
  const CUT = 100 * 1024;
  function fickleHost(first: Representation, partial: Representation, whole: Representation): Handler {
    return (req, res, n) => {
      const asked = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      const { body, headers } = n === 0 ? first : asked ? partial : whole;
      const start = asked ? Number(asked[1]) : 0;
      const range = asked ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {};
      res.writeHead(asked ? 206 : 200, {
        'content-type': 'video/mp4',
        'content-length': String(body.length - start),
        ...headers,
        ...range,
      });
      if (n > 0) return void res.end(body.subarray(start));
      res.write(body.subarray(0, CUT), () => res.destroy());
    };
  }

  describe("a resume continues the first answer's file, never another", () => {
    const A = fakeMp4(512 * 1024);
    const B = fakeMp4(A.length);
    const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    const DATE_A = 'Wed, 21 Oct 2026 07:28:00 GMT';
    const DATE_B = 'Thu, 22 Oct 2026 09:00:00 GMT';

    it.each([
      ['another strong ETag', { etag: '"a"' }, { etag: '"b"' }, '"a"'],
      ['the weak form of the same ETag', { etag: '"a"' }, { etag: 'W/"a"' }, '"a"'],
      ['no ETag when an ETag was the proof', { etag: '"a"' }, {}, '"a"'],
      ['another Last-Modified', { 'last-modified': DATE_A }, { 'last-modified': DATE_B }, DATE_A],
      ['no Last-Modified when that was the proof', { etag: 'W/"a"', 'last-modified': DATE_A }, { etag: 'W/"a"' }, DATE_A],
    ])('starts over from byte 0 when the 206 carries %s, and saves that file whole', async (_case, first, partial, ifRange) => {
      const { cdn, client } = await origins(
        fickleHost({ body: A, headers: first }, { body: B, headers: partial }, { body: B, headers: { etag: '"b"' } }),
      );
      const target = join(dir, 'out.mp4');
      await writeFile(target, OLD);
      const result = await client.videos.download('vid_1', target);
      const saved = await readFile(target);
      expect(sha256(saved)).toBe(sha256(B));
      expect(sha256(saved)).not.toBe(sha256(Buffer.concat([A.subarray(0, CUT), B.subarray(CUT)])));
      expect(result.bytes).toBe(B.length);
      expect(cdn.requests.map((r) => r.headers.range)).toEqual([undefined, `bytes=${CUT}-`, undefined]);
      expect(cdn.requests[1]?.headers['if-range']).toBe(ifRange);
      expect(await leftovers()).toEqual([]);
    });

    it('resumes when the 206 carries the same strong ETag, asking for the range once', async () => {
      const same = { body: A, headers: { etag: '"a"' } };
      const { cdn, client } = await origins(fickleHost(same, same, { body: B, headers: { etag: '"b"' } }));
      const target = join(dir, 'out.mp4');
      await client.videos.download('vid_1', target);
      expect(sha256(await readFile(target))).toBe(sha256(A));
      expect(cdn.requests.map((r) => r.headers.range)).toEqual([undefined, `bytes=${CUT}-`]);
    });

    it('gives up with DownloadIntegrityError naming the mismatch once maxResumes is spent, leaving nothing', async () => {
      // Every 200 is cut, every 206 is another file: the budget runs out on a mismatch.
      const { cdn, client } = await origins((req, res, n) => {
        const tag = { etag: `"v${n + 1}"` };
        // A request without Range is answered as a first one (index 0): a 200 cut after CUT bytes.
        fickleHost({ body: A, headers: tag }, { body: B, headers: tag }, { body: A, headers: tag })(req, res, req.headers.range ? n : 0);
      });
      const target = join(dir, 'out.mp4');
      await writeFile(target, OLD);
      const error = await client.videos.download('vid_1', target, { maxResumes: 3 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DownloadIntegrityError);
      expect((error as DownloadIntegrityError).reason).toMatch(/206 carries etag "v4", not the first answer's "v3"/);
      // 200 cut, 206 refused, 200 from byte 0 cut again, 206 refused: the second cut's offset is the host's affair.
      expect(cdn.requests.map((r) => r.headers.range !== undefined)).toEqual([false, true, false, true]);
      expect(await readFile(target, 'utf8')).toBe(OLD);
      expect(await leftovers()).toEqual([]);
    });
  });

  describe('how the file host is read', () => {
    it('asks the file host once per download, chunked or plain, through one pooled connection', async () => {
      const chunked = await origins((_req, res) => {
        res.writeHead(200, { 'content-type': 'video/mp4', 'transfer-encoding': 'chunked' });
        res.write(BODY);
        res.end();
      });
      const target = join(dir, 'chunked.mp4');
      expect((await chunked.client.videos.download('vid_1', target)).bytes).toBe(BODY.length);
      expect((await readFile(target)).equals(BODY)).toBe(true);
      expect(chunked.cdn.requests).toHaveLength(1);
      expect(chunked.cdn.requests.every((r) => r.headers['x-api-key'] === undefined)).toBe(true);

      const plain = await origins((req, res) => sendFile(req, res));
      for (let i = 0; i < 5; i++) await plain.client.videos.download('vid_1', target);
      expect((await readFile(target)).equals(BODY)).toBe(true);
      expect(plain.cdn.requests).toHaveLength(5);
      expect(plain.cdn.connections()).toBeLessThanOrEqual(2);
    });

    it('sends a 5xx at the file host through the regular retries, one request per try', async () => {
      const { cdn, client } = await origins((req, res, n) =>
        n < 2 ? json(res, 503, { error: { code: 'busy', message: 'later' } }) : sendFile(req, res),
      );
      const target = join(dir, 'out.mp4');
      await client.videos.download('vid_1', target);
      expect((await readFile(target)).equals(BODY)).toBe(true);
      expect(cdn.requests.length).toBe(3);
    });
  });

  describe('failures leave the destination untouched', () => {
    async function expectUntouched(target: string) {
      expect(await readFile(target, 'utf8')).toBe(OLD);
      expect(await leftovers()).toEqual([]);
    }

    it.each([
      ['starts at the wrong byte', `bytes 0-${BODY.length - 1}/${BODY.length}`],
      ['names another total', `bytes ${MiB}-${BODY.length - 1}/${BODY.length + 1}`],
    ])('never splices a 206 whose Content-Range %s: it starts over, then gives up', async (_case, contentRange) => {
      const { cdn, client } = await origins((req, res) => sendFile(req, res, { dropAfter: MiB, contentRange }));
      const target = join(dir, 'out.mp4');
      await writeFile(target, OLD);
      const error = await client.videos.download('vid_1', target, { maxResumes: 2 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AvatarVideoError);
      // 200 dropped; 206 refused; a fresh 200 from byte 0 (no Range) after the refusal.
      expect(cdn.requests.map((r) => r.headers.range)).toEqual([undefined, `bytes=${MiB}-`, undefined]);
      await expectUntouched(target);
    });

    it('gives up on a body shorter than its Content-Length after maxResumes', async () => {
      const { cdn, client } = await origins((req, res) => sendFile(req, res, { ranges: false, dropAfter: MiB }));
      const target = join(dir, 'out.mp4');
      await writeFile(target, OLD);
      const error = await client.videos.download('vid_1', target, { maxResumes: 2 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(APIConnectionError);
      // The first drop made progress and was resumed; two restarts that got no further exhaust maxResumes: 2.
      expect(cdn.requests).toHaveLength(3);
      await expectUntouched(target);
      await expect(client.videos.download('vid_1', target, { maxResumes: 0 })).rejects.toBeInstanceOf(APIConnectionError);
      expect(cdn.requests).toHaveLength(4);
      await expectUntouched(target);
    });

    it('stops at once when aborted mid-download', async () => {
      const { client } = await origins((req, res) => sendFile(req, res, { stallAfter: MiB }));
      const target = join(dir, 'out.mp4');
      await writeFile(target, OLD);
      const controller = new AbortController();
      const download = client.videos.download('vid_1', target, {
        signal: controller.signal,
        onDownloadProgress: ({ bytes }) => {
          if (bytes >= MiB) controller.abort();
        },
      });
      await expect(download).rejects.toBeInstanceOf(APIUserAbortError);
      await expectUntouched(target);
    });

    it('refuses a directory as destination before downloading', async () => {
      const { cdn, client } = await origins((req, res) => sendFile(req, res));
      await mkdir(join(dir, 'folder'));
      await expect(client.videos.download('vid_1', join(dir, 'folder'))).rejects.toThrow(AvatarVideoError);
      expect(cdn.requests).toHaveLength(0);
    });

    it('a 5,000-character destination makes a short message that still names the file', async () => {
      const { client } = await origins((req, res) => sendFile(req, res));
      const target = join(dir, `${'deep/'.repeat(1000)}video.mp4`);
      const error = await client.videos.download('vid_1', target).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AvatarVideoError);
      const { message } = error as Error;
      expect(message.length).toBeLessThan(600);
      expect(message).toContain('/deep/video.mp4');
      expect(message).toContain('…');
    });
  });

  /** An API whose content endpoint answers with `content` itself (no redirect) on each call. */
  async function contentAnswers(content: Handler) {
    let calls = 0;
    const cdn = await rawServer((req, res) => sendFile(req, res));
    const api = await rawServer((req, res) => {
      if (req.url === '/v1/videos/vid_1') return json(res, 200, video('vid_1', { status: 'COMPLETE', progress: 100 }));
      return content(req, res, calls++);
    });
    const client = new AvatarVideo({ ...via, apiKey: KEY, baseURL: api.url, logLevel: 'off', maxRetryDelay: 20 });
    closers.push(() => client.close(), api.close, cdn.close);
    return { api, cdn, client };
  }

  describe('a saved file is the video or an error', () => {
    async function expectNothingSaved(target: string) {
      expect(await readFile(target, 'utf8')).toBe(OLD);
      expect(await leftovers()).toEqual([]);
    }

    it.each([
      ['application/json', '{"id":"vid_1","object":"video"}'],
      ['text/html; charset=utf-8', '<html><body>Bad gateway</body></html>'],
      ['text/plain', 'not a video'],
    ])('refuses a 200 %s answer with DownloadIntegrityError', async (type, text) => {
      const { client } = await contentAnswers((_req, res) =>
        res.writeHead(200, { 'content-type': type, 'x-request-id': 'req_9' }).end(text),
      );
      const target = join(dir, 'out.mp4');
      await writeFile(target, OLD);
      const error = await client.videos.download('vid_1', target, { maxResumes: 1 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DownloadIntegrityError);
      expect(error).toMatchObject({ videoId: 'vid_1', requestId: 'req_9' });
      expect((error as DownloadIntegrityError).reason).toContain(type);
      await expectNothingSaved(target);
    });

    it('does not splice a stalled 200 JSON with the file: it starts over from byte 0', async () => {
      const { api, cdn, client } = await contentAnswers((_req, res, n) => {
        if (n === 0) return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' }).write('{"id":');
        res.writeHead(302, { location: `${cdn.url}/files/vid_1.mp4?sig=${n}` }).end();
      });
      const target = join(dir, 'out.mp4');
      await client.videos.download('vid_1', target, { timeout: 300 });
      expect((await readFile(target)).equals(BODY)).toBe(true);
      expect(cdn.requests.map((r) => r.headers.range)).toEqual([undefined]);
      expect(api.requests.filter((r) => r.url.endsWith('/content')).every((r) => r.headers.range === undefined)).toBe(true);
    });

    it('refuses a body longer than its Content-Length (the MP4 cut at the announced size)', async () => {
      const { client } = await contentAnswers((_req, res) => {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(BODY.length - 1000), etag: ETAG });
        res.end(BODY);
      });
      const target = join(dir, 'out.mp4');
      await writeFile(target, OLD);
      const error = await client.videos.download('vid_1', target, { maxResumes: 0 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DownloadIntegrityError);
      expect((error as DownloadIntegrityError).reason).toMatch(/mdat.*truncated/);
      await expectNothingSaved(target);
    });

    it.each([
      ['cut short, with a matching Content-Length', BODY.subarray(0, BODY.length - 1000), /truncated/],
      ['without ftyp first', Buffer.concat([Buffer.from('\0\0\0\x08free'), BODY]), /ftyp/],
      ['with bytes after its last box', Buffer.concat([BODY, Buffer.from('xyz')]), /damaged box header/],
      ['without moov', Buffer.concat([ftyp(), box('mdat', Buffer.alloc(4000))]), /moov/],
    ])('refuses an MP4 %s', async (_case, bytes, reason) => {
      const { client } = await contentAnswers((_req, res) =>
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(bytes.length) }).end(bytes),
      );
      const target = join(dir, 'out.mp4');
      await writeFile(target, OLD);
      const error = await client.videos.download('vid_1', target, { maxResumes: 0 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DownloadIntegrityError);
      expect((error as DownloadIntegrityError).reason).toMatch(reason);
      await expectNothingSaved(target);
    });

    it('wraps a malformed Location in an AvatarVideoError naming the redirect', async () => {
      const { client } = await contentAnswers((_req, res) => res.writeHead(302, { location: 'http://[::1' }).end());
      const target = join(dir, 'out.mp4');
      for (const call of [
        () => client.videos.download('vid_1', target),
        () => client.videos.content('vid_1'),
        () => client.videos.contentURL('vid_1'),
      ]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AvatarVideoError);
        expect((error as Error).message).toMatch(/Redirect 302 .*malformed Location/);
      }
      expect(await leftovers()).toEqual([]);
    });

    it('removes temp files of its own naming left by a killed process, and keeps a live one', async () => {
      const { client } = await origins((req, res) => sendFile(req, res));
      const target = join(dir, 'out.mp4');
      const dead = join(dir, `.out.mp4.${'7ffffff0'}beef.part`); // no such pid
      const live = join(dir, `.out.mp4.${process.pid.toString(16).padStart(8, '0')}cafe.part`);
      const abandoned = join(dir, `.out.mp4.${process.pid.toString(16).padStart(8, '0')}dead.part`);
      const foreign = join(dir, '.out.mp4.notours.part');
      for (const path of [dead, live, abandoned, foreign]) await writeFile(path, 'partial');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      await utimes(abandoned, twoHoursAgo, twoHoursAgo);
      await client.videos.download('vid_1', target);
      expect((await leftovers()).sort()).toEqual(['.out.mp4.notours.part', live.slice(dir.length + 1)].sort());
    });
  });

  describe('contentURL', () => {
    it('returns the signed file address without any request to the file host', async () => {
      const { api, cdn, client } = await origins((req, res) => sendFile(req, res));
      const url = await client.videos.contentURL('vid_1');
      expect(url).toBe(`${cdn.url}/files/vid_1.mp4?sig=1`);
      expect(cdn.requests).toHaveLength(0);
      expect(api.requests.map((r) => [r.url, r.headers['x-api-key']])).toEqual([['/v1/videos/vid_1/content', KEY]]);
    });

    it('fails with the API error, or when the service answers without a redirect', async () => {
      const { client } = await contentAnswers((_req, res, n) =>
        n === 0
          ? json(res, 404, { error: { code: 'not_found', message: 'no such video' } })
          : res.writeHead(200, { 'content-type': 'video/mp4' }).end('x'),
      );
      await expect(client.videos.contentURL('vid_1')).rejects.toBeInstanceOf(NotFoundError);
      await expect(client.videos.contentURL('vid_1')).rejects.toThrow(/without redirecting/);
    });
  });
});
