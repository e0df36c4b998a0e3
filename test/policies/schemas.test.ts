import { describe, expect, it } from 'vitest';
import * as zod from 'zod';
import { type VideoListParams, VideoPage } from '../../src/pagination.js';
import { normaliseList, videoListSchema, videoSchema } from '../../src/schemas.js';
import { video } from '../helpers/raw-server.js';

describe('videoSchema', () => {
  it('keeps unknown fields and accepts new statuses and models', () => {
    const parsed = videoSchema(zod).parse(video('v', { status: 'QUEUED', model: 'service-video-2', future_field: { a: 1 } }));
    expect(parsed.status).toBe('QUEUED');
    expect(parsed.model).toBe('service-video-2');
    expect((parsed as Record<string, unknown>).future_field).toEqual({ a: 1 });
  });
  it('types share_link_url and keeps it; one that is not a string is dropped, not a failed answer', () => {
    const link = 'https://share.example/v';
    expect(videoSchema(zod).parse(video('v', { share_link_url: link })).share_link_url).toBe(link);
    expect(videoSchema(zod).parse(video('v', { share_link_url: null })).share_link_url).toBeNull();
    const odd = videoSchema(zod).safeParse(video('v', { share_link_url: { href: link } }));
    expect(odd.success).toBe(true);
    expect(odd.data?.share_link_url).toBeUndefined();
    expect(JSON.parse(JSON.stringify(odd.data))).not.toHaveProperty('share_link_url');
  });
  it('accepts a body without the deprecated video_id', () => {
    const { video_id: _omit, ...rest } = video('v');
    expect(videoSchema(zod).safeParse(rest).success).toBe(true);
  });
  it('rejects a missing required field or a wrong type', () => {
    const { id: _id, video_id: _videoId, ...noId } = video('v');
    expect(videoSchema(zod).safeParse(noId).success).toBe(false);
    expect(videoSchema(zod).safeParse(video('v', { created_at: 'yesterday' })).success).toBe(false);
    expect(videoSchema(zod).safeParse(video('v', { error: { code: 1 } })).success).toBe(false);
  });
});

describe('list envelopes', () => {
  const items = [video('a'), video('b')];
  it.each([
    ['a bare array (the service says nothing of later pages)', items, null, 'b', null],
    ['data alone', { data: items }, null, 'b', null],
    ['data + has_more + last_id', { data: items, has_more: true, last_id: 'b' }, true, 'b', null],
    ['videos', { videos: items, has_more: false }, false, 'b', null],
    ['items + next_cursor', { items, next_cursor: 'c2' }, true, 'b', 'c2'],
    ['items + a null next_cursor', { items, next_cursor: null }, false, 'b', null],
  ])('accepts %s', (_name, body, hasMore, lastId, cursor) => {
    const envelope = normaliseList(videoListSchema(zod).parse(body));
    expect(envelope.data.map((v) => v.id)).toEqual(['a', 'b']);
    expect(envelope.has_more).toBe(hasMore);
    expect(envelope.last_id).toBe(lastId);
    expect(envelope.next_cursor).toBe(cursor);
  });
});

describe('VideoPage', () => {
  const mustNotFetch = async (): Promise<never> => {
    throw new Error('must not fetch');
  };
  it('walks every page, by cursor or by last id', async () => {
    const pages: Record<string, ReturnType<typeof normaliseList>> = {
      first: { data: [videoSchema(zod).parse(video('a'))], has_more: true, last_id: 'a', next_cursor: 'c1' },
      c1: { data: [videoSchema(zod).parse(video('b'))], has_more: true, last_id: 'b', next_cursor: null },
      b: { data: [videoSchema(zod).parse(video('c'))], has_more: false, last_id: 'c', next_cursor: null },
    };
    const seen: unknown[] = [];
    const fetchPage = async (params: VideoListParams) => {
      seen.push(params);
      return pages[(params.cursor ?? params.after) as string]!;
    };
    const page = VideoPage.build(pages.first!, { limit: 1 }, fetchPage);
    const ids: string[] = [];
    for await (const v of page) ids.push(v.id);
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(seen).toEqual([
      { limit: 1, cursor: 'c1' },
      { limit: 1, after: 'b' },
    ]);
  });
  it('stops loudly on a repeated cursor', async () => {
    const envelope = { data: [videoSchema(zod).parse(video('a'))], has_more: true, last_id: 'a', next_cursor: 'same' };
    const page = VideoPage.build(envelope, {}, async () => envelope);
    await expect(async () => {
      for await (const _ of page) {
        /* walk */
      }
    }).rejects.toThrow(/repeated a cursor/);
  });
  it('has no next page when has_more is false', async () => {
    const page = VideoPage.build({ data: [], has_more: false, last_id: null, next_cursor: null }, {}, async () => {
      throw new Error('must not fetch');
    });
    expect(page.hasNextPage()).toBe(false);
    await expect(page.getNextPage()).rejects.toThrow(/No next page/);
  });
  it('without has_more, judges by the page length against the limit asked (20 by default)', () => {
    const videos = (n: number) => Array.from({ length: n }, (_, i) => videoSchema(zod).parse(video(`v${i}`)));
    const bare = (n: number, params: VideoListParams) =>
      VideoPage.build(normaliseList(videoListSchema(zod).parse(videos(n))), params, mustNotFetch);
    expect(bare(20, {}).hasNextPage()).toBe(true);
    expect(bare(19, {}).hasNextPage()).toBe(false);
    expect(bare(3, { limit: 3, order: 'asc' }).nextPageParams()).toEqual({ limit: 3, order: 'asc', after: 'v2' });
    expect(bare(2, { limit: 3, order: 'asc' }).nextPageParams()).toBeNull();
    expect(bare(0, { limit: 3 }).hasNextPage()).toBe(false);
    // What the service says wins over the length.
    const said = (hasMore: boolean, n: number) =>
      VideoPage.build({ data: videos(n), has_more: hasMore, last_id: 'x', next_cursor: null }, {}, mustNotFetch);
    expect(said(true, 1).hasNextPage()).toBe(true);
    expect(said(false, 20).hasNextPage()).toBe(false);
  });
  it('stops loudly when a bare-array server ignores `after`', async () => {
    const full = Array.from({ length: 2 }, (_, i) => videoSchema(zod).parse(video(`v${i}`)));
    const envelope = normaliseList(videoListSchema(zod).parse(full));
    const page = VideoPage.build(envelope, { limit: 2 }, async () => envelope);
    await expect(async () => {
      for await (const _ of page) {
        /* walk */
      }
    }).rejects.toThrow(/repeated a cursor/);
  });
});
