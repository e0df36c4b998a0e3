import { describe, expect, it } from 'vitest';
import { VideoPage } from '../../src/pagination.js';
import { normaliseList, VideoListSchema, VideoSchema } from '../../src/schemas.js';
import { video } from '../helpers/raw-server.js';

describe('VideoSchema', () => {
  it('keeps unknown fields and accepts new statuses and models', () => {
    const parsed = VideoSchema.parse(video('v', { status: 'QUEUED', model: 'service-video-2', future_field: { a: 1 } }));
    expect(parsed.status).toBe('QUEUED');
    expect(parsed.model).toBe('service-video-2');
    expect((parsed as Record<string, unknown>).future_field).toEqual({ a: 1 });
  });
  it('accepts a body without the deprecated video_id', () => {
    const { video_id: _omit, ...rest } = video('v');
    expect(VideoSchema.safeParse(rest).success).toBe(true);
  });
  it('rejects a missing required field or a wrong type', () => {
    const { id: _id, ...noId } = video('v');
    expect(VideoSchema.safeParse(noId).success).toBe(false);
    expect(VideoSchema.safeParse(video('v', { created_at: 'yesterday' })).success).toBe(false);
    expect(VideoSchema.safeParse(video('v', { error: { code: 1 } })).success).toBe(false);
  });
});

describe('list envelopes', () => {
  const items = [video('a'), video('b')];
  it.each([
    ['a bare array', items, false, 'b', null],
    ['data + has_more + last_id', { data: items, has_more: true, last_id: 'b' }, true, 'b', null],
    ['videos', { videos: items, has_more: false }, false, 'b', null],
    ['items + next_cursor', { items, next_cursor: 'c2' }, true, 'b', 'c2'],
  ])('accepts %s', (_name, body, hasMore, lastId, cursor) => {
    const envelope = normaliseList(VideoListSchema.parse(body));
    expect(envelope.data.map((v) => v.id)).toEqual(['a', 'b']);
    expect(envelope.has_more).toBe(hasMore);
    expect(envelope.last_id).toBe(lastId);
    expect(envelope.next_cursor).toBe(cursor);
  });
});

describe('VideoPage', () => {
  it('walks every page, by cursor or by last id', async () => {
    const pages: Record<string, ReturnType<typeof normaliseList>> = {
      first: { data: [VideoSchema.parse(video('a'))], has_more: true, last_id: 'a', next_cursor: 'c1' },
      c1: { data: [VideoSchema.parse(video('b'))], has_more: true, last_id: 'b', next_cursor: null },
      b: { data: [VideoSchema.parse(video('c'))], has_more: false, last_id: 'c', next_cursor: null },
    };
    const seen: unknown[] = [];
    const fetchPage = async (params: Record<string, unknown>) => {
      seen.push(params);
      return pages[(params.cursor ?? params.after) as string]!;
    };
    const page = new VideoPage(pages.first!, { limit: 1 }, fetchPage);
    const ids: string[] = [];
    for await (const v of page) ids.push(v.id);
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(seen).toEqual([
      { limit: 1, cursor: 'c1' },
      { limit: 1, after: 'b' },
    ]);
  });
  it('stops loudly on a repeated cursor', async () => {
    const envelope = { data: [VideoSchema.parse(video('a'))], has_more: true, last_id: 'a', next_cursor: 'same' };
    const page = new VideoPage(envelope, {}, async () => envelope);
    await expect(async () => {
      for await (const _ of page) {
        /* walk */
      }
    }).rejects.toThrow(/repeated a cursor/);
  });
  it('has no next page when has_more is false', async () => {
    const page = new VideoPage({ data: [], has_more: false, last_id: null, next_cursor: null }, {}, async () => {
      throw new Error('must not fetch');
    });
    expect(page.hasNextPage()).toBe(false);
    await expect(page.getNextPage()).rejects.toThrow(/No next page/);
  });
});
