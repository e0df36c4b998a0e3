import type { MetadataTags, RichImageData } from 'mediabunny';

/** Metadata key under which a joined file lists its segments' job ids, as a JSON array in segment order. */
export const SEGMENTS_TAG = 'avatar-video.segments';

type TagValue = string | Uint8Array | RichImageData;

// Duck-typed so this module does not load mediabunny (see platform/node.ts).
const isRichImage = (value: unknown): value is RichImageData =>
  typeof value === 'object' &&
  value !== null &&
  (value as RichImageData).data instanceof Uint8Array &&
  typeof (value as RichImageData).mimeType === 'string';

const isTagValue = (value: unknown): value is TagValue => typeof value === 'string' || value instanceof Uint8Array || isRichImage(value);

const bytesOf = (value: Exclude<TagValue, string>) => (isRichImage(value) ? value.data : value);
const sameValue = (a: TagValue, b: TagValue) =>
  typeof a === 'string' || typeof b === 'string' ? a === b : Buffer.compare(bytesOf(a), bytesOf(b)) === 0;

/**
 * The tags of a joined file: every metadata item any segment carries (mediabunny's `raw` tags: the `ilst` items of
 * `moov/udta/meta`, by their 4-character or `mdta` key, and the other atoms directly in `moov/udta`), by its original
 * key, so that the service's provenance marking survives the join; plus {@link SEGMENTS_TAG}.
 *
 * - A value every segment that has the key agrees on is written once.
 * - Differing text values (each segment names its own job) are kept all: one per line, in segment order, repeats once.
 * - Differing binary values are kept all: the first under the key, segment n's under `<key>#<n>`.
 */
export function joinedTags(segments: MetadataTags[], segmentIds?: readonly string[]): MetadataTags {
  const byKey = new Map<string, Array<{ value: TagValue; segment: number }>>();
  segments.forEach((tags, segment) => {
    for (const [key, value] of Object.entries(tags.raw ?? {})) {
      if (!isTagValue(value)) continue; // MP4 never yields the other kinds (Matroska attachments, ID3 TXXX maps)
      const values = byKey.get(key) ?? [];
      if (!values.some((seen) => sameValue(seen.value, value))) values.push({ value, segment });
      byKey.set(key, values);
    }
  });
  const raw: Record<string, TagValue> = {};
  for (const [key, values] of byKey) {
    if (values.every(({ value }) => typeof value === 'string')) {
      raw[key] = values.map(({ value }) => value).join('\n');
      continue;
    }
    values.forEach(({ value, segment }, i) => {
      raw[i === 0 ? key : `${key}#${segment + 1}`] = value;
    });
  }
  if (segmentIds && segmentIds.length > 0) raw[SEGMENTS_TAG] = JSON.stringify(segmentIds);
  return { raw };
}
