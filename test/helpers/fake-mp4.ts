import { randomBytes } from 'node:crypto';

/** One ISO-BMFF box with a 32-bit size. */
export function box(type: string, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.byteLength, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}

/**
 * A file of `size` bytes whose top-level boxes are those of an MP4 (`ftyp`, `moov`, `mdat` of random bytes):
 * enough for the download's box check, which reads box headers only.
 */
export const ftyp = () => box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1'));

export function fakeMp4(size: number): Buffer {
  const head = Buffer.concat([ftyp(), box('moov', randomBytes(64))]);
  return Buffer.concat([head, box('mdat', randomBytes(size - head.byteLength - 8))]);
}
