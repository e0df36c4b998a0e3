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
 * Returns the `moov` and `moof` boxes, whose contents are checked next.
 */
export async function topLevelBoxes(reader: ByteReader): Promise<{ moov: BoxRange; moofs: BoxRange[] }> {
  let moov: BoxRange | undefined;
  const moofs: BoxRange[] = [];
  let at = 0;
  for (let count = 0; at < reader.size && count < MAX_BOXES; count += 1) {
    const header = await reader.bytes(at, 16);
    const type = fourcc(header, 4);
    const size32 = u32be(header, 0);
    const size = size32 === 1 ? u32be(header, 8) * 2 ** 32 + u32be(header, 12) : size32 === 0 ? reader.size - at : size32;
    const sane = header.length >= 8 && /^[\x20-\x7e]{4}$/.test(type) && size >= (size32 === 1 ? 16 : 8);
    // Bytes after a complete movie (camera padding, a stray tail) do not stop players; they do not stop us either.
    if (!sane && moov) break;
    if (!sane) throw unreadable(`it has a damaged box header at byte ${at.toLocaleString('en-US')} (corrupt or truncated)`);
    if (at + size > reader.size) {
      throw unreadable(
        `its "${type}" box needs ${(at + size).toLocaleString('en-US')} bytes but the file has ${reader.size.toLocaleString('en-US')} (truncated)`,
      );
    }
    if (type === 'moov') moov ??= { type, at, size };
    if (type === 'moof') moofs.push({ type, at, size });
    at += size;
  }
  if (!moov) throw unreadable('it has no movie header ("moov" box): the recording was not finalised or the file is incomplete');
  return { moov, moofs };
}
