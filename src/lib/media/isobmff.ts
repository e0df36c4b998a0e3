import type { LocalSource } from '../../internal/byte-source.js';
import { unreadable } from './failure.js';
import { type ByteReader, fourcc, u32be } from './reader.js';

const MAX_BOXES = 100_000;

export interface BoxRange {
  type: string;
  at: number;
  size: number;
}

/**
 * Walk the top-level boxes of an MP4/MOV by their headers (8 or 16 bytes each) before mediabunny parses it, to name
 * the two common breakages precisely: a box that runs past the end of the file (a cut-off copy) and a missing
 * `moov` (a recording that was never finalised). mediabunny alone would report either as a generic parse error.
 * Returns the first `moov` and every `moof` box in file order; their contents are checked next (mp4-tables.ts).
 * With `whole` (a download, which must be complete) the file must also start with `ftyp` and hold nothing but boxes.
 */
export async function topLevelBoxes(reader: ByteReader<Pick<LocalSource, 'size' | 'read'>>, whole = false): Promise<BoxRange[]> {
  const headers: BoxRange[] = [];
  let moov = false;
  let at = 0;
  for (let count = 0; at < reader.size; count += 1) {
    if (count >= MAX_BOXES && whole) throw unreadable(`it has more than ${MAX_BOXES} top-level boxes`);
    if (count >= MAX_BOXES) break;
    const box = boxAt(await reader.bytes(at, 16), at, reader.size);
    // Bytes after a complete movie (camera padding, a stray tail) do not stop players; they do not stop us either.
    if (!box && moov && !whole) break;
    if (!box) throw unreadable(`it has a damaged box header at byte ${at.toLocaleString('en-US')} (corrupt or truncated)`);
    if (whole && count === 0 && box.type !== 'ftyp') throw unreadable(`it starts with a "${box.type}" box, not "ftyp"`);
    if (at + box.size > reader.size) {
      throw unreadable(
        `its "${box.type}" box needs ${(at + box.size).toLocaleString('en-US')} bytes but the file has ${reader.size.toLocaleString('en-US')} (truncated)`,
      );
    }
    if ((box.type === 'moov' && !moov) || box.type === 'moof') headers.push(box);
    moov ||= box.type === 'moov';
    at += box.size;
  }
  if (at === 0) throw unreadable('it is empty');
  if (!moov)
    throw unreadable(`it has no movie header ("moov" box): ${whole ? '' : 'the recording was not finalised or '}the file is incomplete`);
  return headers;
}

/** Check that a file that must be complete (a download) is a whole MP4 by its top-level box headers alone. */
export async function checkWholeMp4(reader: ByteReader<Pick<LocalSource, 'size' | 'read'>>): Promise<void> {
  await topLevelBoxes(reader, true);
}

/** The type, size and header length of the box whose header is at `at` in `b`; `rest` is the size of a box running to the end. */
export function boxHeader(b: Uint8Array, at: number, rest: number) {
  const size32 = u32be(b, at);
  const size = size32 === 1 ? u32be(b, at + 8) * 2 ** 32 + u32be(b, at + 12) : size32 === 0 ? rest : size32;
  return { type: fourcc(b, at + 4), size, headerSize: size32 === 1 ? 16 : 8 };
}

/** The box whose header is `header` (read at `at`), or undefined when the header is not a plausible one. */
function boxAt(header: Uint8Array, at: number, fileSize: number): BoxRange | undefined {
  if (header.length < 8) return undefined;
  const { type, size, headerSize } = boxHeader(header, 0, fileSize - at);
  const sane = /^[\x20-\x7e]{4}$/.test(type) && size >= headerSize && header.length >= headerSize;
  return sane ? { type, at, size } : undefined;
}
