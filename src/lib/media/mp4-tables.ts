import type { LocalSource } from '../../internal/byte-source.js';
import { unreadable } from './failure.js';
import { type BoxRange, boxHeader } from './isobmff.js';
import { u32be } from './reader.js';

/*
 * Plausibility checks on MP4 sample tables, run before mediabunny sees them. mediabunny loops over counts taken
 * from the file (samples per chunk, time-to-sample counts when composition offsets exist, samples in a fragment
 * run); one corrupt count makes it spin for minutes or run out of memory, and a synchronous loop cannot be timed
 * out. Every count here must be backed by bytes the file actually holds.
 */

/** Per-sample timestamps mediabunny builds when a track has composition offsets: keep that array sane. */
const MAX_EXPANDED_SAMPLES = 20_000_000;
/**
 * Samples in fragment runs that carry no per-sample fields, so that their box size does not bound their count:
 * per run, and over the file (a two-hour film has about half a million).
 */
const MAX_RUN_SAMPLES = 50_000;
const MAX_FRAGMENT_SAMPLES = 2_000_000;
/** Larger than any movie header of a clip that could be accepted (a 60 s moov is tens of KB). */
const MAX_HEADER_BOX = 64 * 1024 * 1024;

/** Child boxes of `b`; stops at the first malformed header (mediabunny reports those itself). */
function* children(b: Uint8Array) {
  for (let at = 0; at + 8 <= b.length; ) {
    const { type, size, headerSize } = boxHeader(b, at, b.length - at);
    if (size < headerSize || at + size > b.length) return;
    yield { type, body: b.subarray(at + headerSize, at + size) };
    at += size;
  }
}

/** The payloads of the child boxes of `b` of one type. */
const all = (b: Uint8Array, type: string) => [...children(b)].filter((box) => box.type === type).map((box) => box.body);
const fail = (what: string) => unreadable(`its sample tables are corrupt (${what})`);

/** Read the top-level `moov` and `moof` boxes whole and check the counts in them. */
export async function checkHeaderBoxes(source: LocalSource, boxes: BoxRange[]): Promise<void> {
  const read: Uint8Array[] = [];
  for (const box of boxes) {
    if (box.size > MAX_HEADER_BOX)
      throw unreadable(`its "${box.type}" box is ${box.size.toLocaleString('en-US')} bytes, too large to be a header`);
    read.push(await source.read(box.at, box.size));
  }
  for (const trak of read.flatMap((box) => all(box, 'moov')).flatMap((moov) => all(moov, 'trak'))) {
    // A track has one media, media information and sample table box: the first of each is the one.
    const stbl = ['mdia', 'minf', 'stbl'].reduce<Uint8Array | undefined>((box, type) => box && all(box, type)[0], trak);
    if (stbl) checkSampleTable(stbl, source.size);
  }
  const trafs = read.flatMap((box) => all(box, 'moof')).flatMap((moof) => all(moof, 'traf'));
  checkFragmentRuns(trafs.flatMap((traf) => all(traf, 'trun')));
}

function checkSampleTable(stbl: Uint8Array, fileSize: number): void {
  const boxes = new Map([...children(stbl)].map((box) => [box.type, box.body]));
  const stsz = boxes.get('stsz');
  const stz2 = boxes.get('stz2');
  // Sample count: from stsz (a table of sizes, or one size for all) or stz2; unknown in a fragmented file's moov.
  let samples = stz2 ? u32be(stz2, 8) : 0;
  if (stsz) {
    const uniformSize = u32be(stsz, 4);
    samples = u32be(stsz, 8);
    if (uniformSize > 0 && samples * uniformSize > fileSize)
      throw fail(`${samples} samples of ${uniformSize} bytes in a ${fileSize}-byte file`);
  }
  const chunks = u32be(boxes.get('stco') ?? boxes.get('co64') ?? new Uint8Array(8), 4);
  const stsc = boxes.get('stsc');
  if (stsc) {
    const entries = u32be(stsc, 4);
    if (8 + entries * 12 > stsc.length) throw fail('sample-to-chunk table longer than its box');
    let previous = 0;
    for (let i = 0; i < entries; i += 1) {
      const firstChunk = u32be(stsc, 8 + i * 12);
      const perChunk = u32be(stsc, 12 + i * 12);
      if (firstChunk <= previous || (chunks > 0 && firstChunk > chunks))
        throw fail(`chunk ${firstChunk} out of order or past ${chunks} chunks`);
      if (perChunk === 0 || perChunk > Math.max(samples, 1)) throw fail(`${perChunk} samples per chunk for ${samples} samples`);
      previous = firstChunk;
    }
  }
  const timeToSample = sumCounts(boxes.get('stts'));
  const compositionOffsets = sumCounts(boxes.get('ctts'));
  if (timeToSample > samples || compositionOffsets > samples)
    throw fail(`timing for ${Math.max(timeToSample, compositionOffsets)} samples, ${samples} present`);
  if (boxes.has('ctts') && samples > MAX_EXPANDED_SAMPLES) throw fail(`${samples} samples with composition offsets`);
}

/** Sum of the first field of each 8-byte entry (stts, ctts), checking the entries fit their box. */
function sumCounts(box: Uint8Array | undefined): number {
  if (!box) return 0;
  const entries = u32be(box, 4);
  if (8 + entries * 8 > box.length) throw fail('timing table longer than its box');
  let total = 0;
  for (let i = 0; i < entries; i += 1) total += u32be(box, 8 + i * 8);
  return total;
}

/** Check the track runs (`trun` payloads) of a fragmented file. */
function checkFragmentRuns(runs: Uint8Array[]): void {
  let unbounded = 0;
  for (const run of runs) {
    const flags = u32be(run, 0) & 0xffffff;
    const count = u32be(run, 4);
    const headerBytes = 8 + (flags & 0x1 ? 4 : 0) + (flags & 0x4 ? 4 : 0);
    // Duration, size, flags and composition offset: 4 bytes each per sample when present.
    const perSample = 4 * [0x100, 0x200, 0x400, 0x800].filter((bit) => flags & bit).length;
    if (perSample === 0) unbounded += count;
    const fits = perSample > 0 ? headerBytes + count * perSample <= run.length : count <= MAX_RUN_SAMPLES;
    if (!fits || unbounded > MAX_FRAGMENT_SAMPLES) throw fail(`a fragment run of ${count} samples`);
  }
}
