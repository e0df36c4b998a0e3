/**
 * What a format parser throws when a file is not what it may be. `probeSource` turns it into a
 * `MediaValidationError` naming the file and the field; parsers only describe what they saw.
 */
export class ProbeFailure extends Error {
  override name = 'ProbeFailure';
  constructor(
    readonly code: 'unsupported_format' | 'unreadable_media',
    /** For `unsupported_format`: what the file is ("FLAC audio"). For `unreadable_media`: what is wrong with it. */
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** The file is of a known format but broken (truncated, corrupt, inconsistent). */
export const unreadable = (detail: string) => new ProbeFailure('unreadable_media', detail);

/** The file is something other than an accepted format; `what` names it, e.g. "FLAC audio". */
export const unsupported = (what: string) => new ProbeFailure('unsupported_format', what);
