import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as zod from 'zod';
import { videoSchema } from '../../src/schemas.js';
import { video } from '../helpers/raw-server.js';

// videoSchema.accepts is a cheaper check of the common valid Video; zod stays the rules. Whatever the fast path takes
// as is, zod must take too and give back an equal object: so either path gives the caller the same video.

const accepts = videoSchema.accepts as (value: unknown) => boolean;
const text = fc.string({ maxLength: 8 });
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const errorBody = fc.record({ code: fc.oneof(text, fc.jsonValue()), message: fc.oneof(text, fc.jsonValue()) }, { requiredKeys: [] });
/** Each field: a value of its own type, or of its nullable type, or anything JSON holds. */
const fields = {
  id: fc.oneof(text, fc.jsonValue()),
  object: fc.oneof(text, fc.jsonValue()),
  status: fc.oneof(fc.constantFrom('QUEUED', 'PROCESSING', 'COMPLETE', 'FAILED', 'CANCELLED'), text, fc.jsonValue()),
  created_at: fc.oneof(finite, fc.jsonValue()),
  completed_at: fc.oneof(finite, fc.constant(null), fc.jsonValue()),
  progress: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant(null), fc.jsonValue()),
  error: fc.oneof(fc.constant(null), errorBody, fc.jsonValue()),
  model: fc.oneof(text, fc.constant(null), fc.jsonValue()),
  generation_mode: fc.oneof(text, fc.constant(null), fc.jsonValue()),
  aspect_ratio: fc.oneof(text, fc.constant(null), fc.jsonValue()),
  source_video_id: fc.oneof(text, fc.constant(null), fc.jsonValue()),
  caption_template_id: fc.oneof(text, fc.constant(null), fc.jsonValue()),
  share_link_url: fc.oneof(text, fc.constant(null), fc.jsonValue()),
  video_id: fc.oneof(text, fc.jsonValue()),
};
const known = fc.record(fields, { requiredKeys: [] });
const extras = fc.dictionary(fc.oneof(text, fc.constantFrom('__proto__', 'constructor', 'id', 'error')), fc.jsonValue(), {
  maxKeys: 3,
});
/** A body as the wire gives it: JSON text parsed, extras (maybe named like a field, or `__proto__`) included. */
const body = fc.oneof(
  fc.tuple(extras, known).map(([more, fields]) => JSON.parse(`{${[...entries(more), ...entries(fields)].join(',')}}`)),
  fc.jsonValue(),
);

function entries(record: Record<string, unknown>): string[] {
  return Object.keys(record).map((key) => `${JSON.stringify(key)}:${JSON.stringify(record[key])}`);
}

describe('videoSchema.accepts (the fast path of a Video)', () => {
  it('takes as is only what zod takes, and zod gives back an equal video', () => {
    fc.assert(
      fc.property(body, (value) => {
        if (!accepts(value)) return;
        const result = videoSchema(zod).safeParse(value);
        expect(result.success).toBe(true);
        expect(result.data).toStrictEqual(value);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes the common valid answer, whatever its optional fields and extras', () => {
    const valid = fc.record(
      {
        id: text,
        status: fields.status.filter((s) => typeof s === 'string'),
        created_at: finite,
        completed_at: fc.option(finite),
        progress: fc.option(fc.integer({ min: 0, max: 100 })),
        error: fc.option(fc.record({ code: text, message: text })),
        model: fc.option(text),
        share_link_url: fc.option(text),
      },
      { requiredKeys: ['id', 'status', 'created_at'] },
    );
    fc.assert(
      fc.property(valid, (value) => {
        expect(accepts(JSON.parse(JSON.stringify(value)))).toBe(true);
      }),
    );
    expect(accepts(video('v', { future_field: { a: 1 } }))).toBe(true);
  });

  it('leaves to zod what it does not take: video_id alone, a bad field, not an object', () => {
    const { id: _id, ...onlyVideoId } = video('v');
    for (const value of [
      onlyVideoId,
      video('v', { created_at: 'yesterday' }),
      video('v', { error: { code: 1 } }),
      video('v', { object: null }),
      video('v', { share_link_url: { href: 'https://share.example/v' } }),
      JSON.parse('{"__proto__":{},"id":"v","status":"COMPLETE","created_at":1}'),
      [video('v')],
      null,
    ])
      expect(accepts(value)).toBe(false);
    expect(videoSchema(zod).parse(onlyVideoId).id).toBe('v');
  });
});
