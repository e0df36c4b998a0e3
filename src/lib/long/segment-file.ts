import { basename } from 'node:path';
import { UploadInputError } from '../../errors.js';
import { abortError } from '../../internal/abort.js';
import { writeFileAtomic } from '../../internal/atomic-file.js';
import type { LocalSource } from '../../internal/byte-source.js';
import { shorten } from '../../internal/shorten.js';

/** Bytes copied per read: a segment is streamed through, never held whole. */
const COPY_CHUNK = 1024 * 1024;

/** A piece of a segment file: literal bytes (a header) or a byte range of the source. */
export type SegmentPart = Uint8Array | { start: number; length: number };

export function throwIfAborted(signal: AbortSignal | undefined, what = 'Splitting the audio'): void {
  if (signal?.aborted) throw abortError(signal, what);
}

/** Write `parts` to `path` atomically (see `writeFileAtomic`): a crash or an abort never leaves a partial segment. */
export function writeSegmentFile(path: string, source: LocalSource, parts: SegmentPart[], signal?: AbortSignal): Promise<void> {
  return writeFileAtomic(path, async (file) => {
    for (const part of parts) {
      if (part instanceof Uint8Array) {
        await file.write(part);
        continue;
      }
      for (let at = part.start, end = part.start + part.length; at < end; at += COPY_CHUNK) {
        throwIfAborted(signal);
        const length = Math.min(COPY_CHUNK, end - at);
        const bytes = await source.read(at, length);
        if (bytes.length < length) throw new UploadInputError(`${shorten(source.name)} ended early while writing ${basename(path)}.`);
        await file.write(bytes);
      }
    }
  });
}
