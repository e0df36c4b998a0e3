/**
 * `videos.list` against the service's list semantics (its public OpenAPI description): a bare JSON array,
 * `order` asc|desc (default desc), `after` strictly after that video in the order asked, `limit` 1..100
 * (default 20), no has_more and no cursor. Served from real loopback sockets.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AvatarVideo, InvalidArgumentError, ResponseValidationError, type Video } from '../../src/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

type Server = Awaited<ReturnType<typeof rawServer>>;
const closers = useCleanup();

async function connect(handler: Parameters<typeof rawServer>[0]): Promise<{ client: AvatarVideo; server: Server }> {
  const server = await rawServer(handler);
  const client = new AvatarVideo({ apiKey: 'key-list-1', baseURL: server.url, logLevel: 'off' });
  closers.push(() => client.close(), server.close);
  return { client, server };
}

/** 45 videos, oldest first: vid_01 .. vid_45. */
const IDS = Array.from({ length: 45 }, (_, i) => `vid_${String(i + 1).padStart(2, '0')}`);
const NEWEST_FIRST = [...IDS].reverse();

/** The service's list, as its OpenAPI description has it (FastAPI's 422 for a limit out of range). */
function serviceList(res: ServerResponse, url: URL, bodies: object[]): void {
  const limit = Number(url.searchParams.get('limit') ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    json(res, 422, { detail: [{ loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal' }] });
    return;
  }
  const order = url.searchParams.get('order') ?? 'desc';
  const all = order === 'asc' ? bodies : [...bodies].reverse();
  const after = url.searchParams.get('after');
  const start = after === null ? 0 : all.findIndex((body) => (body as { id?: string }).id === after) + 1;
  json(res, 200, all.slice(start, start + limit));
}

const service = () =>
  connect((req, res) =>
    serviceList(
      res,
      new URL(req.url ?? '/', 'http://service'),
      IDS.map((id) => video(id)),
    ),
  );

async function collect(iterable: AsyncIterable<Video>): Promise<string[]> {
  const ids: string[] = [];
  for await (const v of iterable) ids.push(v.id);
  return ids;
}

/** The query of each request, as `key=value&...` sorted by key, for readable expectations. */
const queries = (s: Server) =>
  s.requests.map((r) =>
    [...new URL(r.url, 'http://service').searchParams]
      .sort()
      .map((p) => p.join('='))
      .join('&'),
  );

describe('list over a bare array', () => {
  it('for await over list() yields all 45, newest first, in pages of 20', async () => {
    const { client, server } = await service();
    expect(await collect(client.videos.list())).toEqual(NEWEST_FIRST);
    expect(queries(server)).toEqual(['', `after=${NEWEST_FIRST[19]}`, `after=${NEWEST_FIRST[39]}`]);
  });

  it('list({ limit: 100 }) is one request', async () => {
    const { client, server } = await service();
    expect(await collect(client.videos.list({ limit: 100 }))).toEqual(NEWEST_FIRST);
    expect(queries(server)).toEqual(['limit=100']);
  });

  it("list({ order: 'asc' }) walks oldest first, keeping the order on every page", async () => {
    const { client, server } = await service();
    expect(await collect(client.videos.list({ order: 'asc' }))).toEqual(IDS);
    expect(queries(server)).toEqual(['order=asc', `after=${IDS[19]}&order=asc`, `after=${IDS[39]}&order=asc`]);
  });

  it("list({ order: 'asc', after: <5th id>, limit: 10 }) starts strictly after it; a full last page costs one empty ask", async () => {
    const { client, server } = await service();
    expect(await collect(client.videos.list({ order: 'asc', after: IDS[4], limit: 10 }))).toEqual(IDS.slice(5));
    expect(queries(server)).toEqual([5, 15, 25, 35, 45].map((n) => `after=${IDS[n - 1]}&limit=10&order=asc`));
  });

  it('a page: hasNextPage() and getNextPage() follow the page length', async () => {
    const { client } = await service();
    const first = await client.videos.list({ limit: 40 });
    expect([first.data.length, first.has_more, first.last_id, first.hasNextPage()]).toEqual([40, null, NEWEST_FIRST[39], true]);
    const second = await first.getNextPage();
    expect(second.data.map((v) => v.id)).toEqual(NEWEST_FIRST.slice(40));
    expect(second.hasNextPage()).toBe(false);
    await expect(second.getNextPage()).rejects.toThrow(/No next page/);
  });

  it.each([500, 0, 2.5, Number.NaN])('list({ limit: %s }) fails locally, before any request', async (limit) => {
    const { client, server } = await service();
    const awaited = await Promise.resolve(client.videos.list({ limit })).catch((error: unknown) => error);
    expect(awaited).toBeInstanceOf(InvalidArgumentError);
    expect(awaited).toMatchObject({ argument: 'limit', message: expect.stringMatching(/limit must be a whole number from 1 to 100/) });
    await expect(collect(client.videos.list({ limit }))).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(server.requests).toHaveLength(0);
  });

  it('an order other than asc or desc fails locally too', async () => {
    const { client, server } = await service();
    // @ts-expect-error a JavaScript caller can pass anything
    await expect(collect(client.videos.list({ order: 'ASC' }))).rejects.toMatchObject({ name: 'InvalidArgumentError', argument: 'order' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('the envelopes still accepted', () => {
  const FIVE = IDS.slice(0, 5);
  it('{ data, has_more, last_id }: has_more decides, even on pages shorter than the limit', async () => {
    const { client, server } = await connect((req, res) => {
      const after = new URL(req.url ?? '/', 'http://service').searchParams.get('after');
      const start = after === null ? 0 : IDS.indexOf(after) + 1;
      const data = FIVE.slice(start, start + 2).map((id) => video(id));
      json(res, 200, { object: 'list', data, has_more: start + 2 < 5, last_id: data.at(-1)?.id ?? null });
    });
    expect(await collect(client.videos.list())).toEqual(FIVE);
    expect(queries(server)).toEqual(['', `after=${IDS[1]}`, `after=${IDS[3]}`]);
  });

  it('{ items, next_cursor }: the cursor is sent back, `after` dropped; a null cursor ends even a full page', async () => {
    const four = IDS.slice(0, 4);
    const { client, server } = await connect((req, res) => {
      const cursor = new URL(req.url ?? '/', 'http://service').searchParams.get('cursor');
      const start = cursor === null ? 0 : Number(cursor.slice(1));
      const items = four.slice(start, start + 2).map((id) => video(id));
      json(res, 200, { items, next_cursor: start + 2 < four.length ? `c${start + 2}` : null });
    });
    expect(await collect(client.videos.list({ after: 'vid_00', limit: 2 }))).toEqual(four);
    expect(queries(server)).toEqual(['after=vid_00&limit=2', 'cursor=c2&limit=2']);
  });
});

describe('a video with video_id and no id', () => {
  const bare = (id: string) => {
    const { id: _id, ...rest } = video(id, { share_link_url: `https://share.example/${id}` });
    return rest;
  };

  it('gets its id from video_id and keeps unknown fields, in retrieve and list', async () => {
    const { client } = await connect((req, res) =>
      req.url === '/v1/videos/vid_07' ? json(res, 200, bare('vid_07')) : json(res, 200, [bare('vid_08'), bare('vid_09')]),
    );
    const one = await client.videos.retrieve('vid_07');
    expect(one).toMatchObject({ id: 'vid_07', video_id: 'vid_07', share_link_url: 'https://share.example/vid_07' });
    expect(await collect(client.videos.list())).toEqual(['vid_08', 'vid_09']);
  });

  it('a video with neither id nor video_id is still a ResponseValidationError', async () => {
    const { id: _id, video_id: _videoId, ...neither } = video('vid_x');
    const { client } = await connect((_req, res) => json(res, 200, neither));
    const error = await client.videos.retrieve('vid_x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).problems).toEqual([expect.stringMatching(/^id: /)]);
  });
});

describe('the msw mock (avatar-video/testing)', () => {
  it('lists more than 20 videos, newest first or oldest first', async () => {
    const mock = await startMockServer();
    const mockClient = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
    closers.push(
      () => mockClient.close(),
      () => mock.close(),
    );
    const fields = { model: 'service-avatar-x', generation_mode: 'image_to_video', aspect_ratio: '16:9' } as const;
    const created = Array.from({ length: 45 }, () => mock.state.createVideo(fields).id);
    expect(await collect(mockClient.videos.list())).toEqual([...created].reverse());
    expect(await collect(mockClient.videos.list({ order: 'asc', after: created[4], limit: 10 }))).toEqual(created.slice(5));
    const lists = mock.requests.filter((r) => r.method === 'GET' && r.path === '/v1/videos');
    expect(lists.map((r) => r.status)).toEqual(Array(3 + 5).fill(200));
  });
});
