import { platform } from '#platform';
import { MediaValidationError } from '../../errors.js';
import { checkOptions } from '../../internal/arguments.js';
import type { LocalSource } from '../../internal/byte-source.js';
import { shorten } from '../../internal/shorten.js';
import type { Uploadable } from '../../uploads.js';
import { ProbeFailure, unsupported } from './failure.js';
import { probeJpeg, probePng } from './image.js';
import { probeMp3 } from './mp3.js';
import { probeIsobmff } from './mp4.js';
import { ByteReader } from './reader.js';
import { sniff } from './sniff.js';
import { FORMATS, type MediaFormat, type MediaInfo } from './types.js';
import { probeWav } from './wav.js';

export interface ProbeOptions {
  /**
   * The create parameter the file is meant for (`audio_reference`, `image_reference`, `video_reference`). It sets
   * the issue's `field` and what a rejection says is allowed; it does not make other formats fail.
   * @default undefined (the issue's `field` is `source`, and a rejection lists every format allowed)
   */
  fieldName?: string | undefined;
}

const PROBES = { wav: probeWav, mp3: probeMp3, png: probePng, jpeg: probeJpeg, mp4: probeIsobmff, mov: probeIsobmff };

/** What each create field accepts, as a rejection words it. */
export const ALLOWED: Record<string, string> = {
  audio_reference: 'audio must be WAV or MP3',
  image_reference: 'images must be JPEG or PNG',
  video_reference: 'video references must be MP4 or MOV with a video track',
};
const ALLOWED_ANY = 'accepted formats are WAV and MP3 audio, JPEG and PNG images, and MP4 and MOV video';

/**
 * Find out what a file is from its bytes (never its name) and measure it: kind, format, duration, dimensions.
 * Only headers and frame headers are read. Rejects with a {@link MediaValidationError} holding one issue,
 * `unsupported_format` (naming what the file is) or `unreadable_media` (truncated or corrupt). An input that cannot
 * be opened at all (a missing path, a remote URL) rejects with `UploadInputError`, as it would in `create`.
 *
 * @example
 * const info = await probeMedia('./speech.mp3'); // { kind: 'audio', format: 'mp3', durationSeconds: 12.4 }
 */
export async function probeMedia(source: Uploadable, options?: ProbeOptions): Promise<MediaInfo> {
  const { fieldName } = checkOptions('probeMedia', options);
  const local = await platform.openSource(source, fieldName ?? 'input');
  try {
    return await probeSource(local, fieldName);
  } finally {
    await local.dispose();
  }
}

/** {@link probeMedia} on an already opened source, which stays open (validation uploads it afterwards). */
export async function probeSource(source: LocalSource, field?: string): Promise<MediaInfo> {
  const reader = new ByteReader(source);
  let format: MediaFormat | undefined;
  try {
    const sniffed = await sniff(reader);
    if ('other' in sniffed) throw unsupported(sniffed.other);
    format = sniffed.format;
    return await PROBES[format](reader, format);
  } catch (error) {
    throw toValidationError(error, source.name, field, format);
  }
}

/** Every failure, including an I/O error or a parser bug, leaves as a MediaValidationError naming the file. */
function toValidationError(error: unknown, name: string, field: string | undefined, format: MediaFormat | undefined): MediaValidationError {
  const failure = error instanceof ProbeFailure ? error : undefined;
  // An I/O error's message quotes the path again.
  const detail = failure?.detail ?? shorten(error instanceof Error ? error.message : String(error));
  const quoted = shorten(name);
  const message =
    failure?.code === 'unsupported_format'
      ? `${quoted} is ${detail}; ${(field && ALLOWED[field]) ?? ALLOWED_ANY}`
      : `${quoted} cannot be read${format ? ` as ${FORMATS[format].label}` : ''}: ${detail}`;
  const mediaError = new MediaValidationError([{ field: field ?? 'source', code: failure?.code ?? 'unreadable_media', message }]);
  if (!failure) mediaError.cause = error;
  return mediaError;
}
