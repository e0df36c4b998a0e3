/**
 * The tags of a joined file (lib/long/provenance.ts), a pure rule: every segment's metadata kept, and the segments'
 * job ids. That a join writes them, under the tag the docs name, is test/media/join-videos.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { joinedTags, SEGMENTS_TAG } from '../../src/lib/long/provenance.js';
import { loadMediabunny } from '../helpers/mp4.js';

describe('joinedTags', () => {
  it('keeps every key, agreeing values once, differing text one per line, differing bytes per segment', async () => {
    const { RichImageData } = await loadMediabunny();
    const mark = new Uint8Array([1, 2, 3]);
    const image = new RichImageData(new Uint8Array([9]), 'image/png');
    const tags = joinedTags(
      [
        { raw: { '©cmt': 'made by the service', provenance: 'job=a', c2pa: mark, covr: image } },
        { raw: { '©cmt': 'made by the service', provenance: 'job=b', c2pa: new Uint8Array([4]) } },
        { raw: { provenance: 'job=a', extra: 'only here' } },
      ],
      ['a', 'b', 'a'],
    );
    expect(tags.raw).toEqual({
      '©cmt': 'made by the service',
      provenance: 'job=a\njob=b',
      c2pa: mark,
      'c2pa#2': new Uint8Array([4]),
      covr: image,
      extra: 'only here',
      [SEGMENTS_TAG]: '["a","b","a"]',
    });
  });
});
