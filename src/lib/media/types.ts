/** Container or image format, read from the bytes (never from a file name or a declared type). */
export type MediaFormat = 'wav' | 'mp3' | 'jpeg' | 'png' | 'mp4' | 'mov';

/** What {@link probeMedia} found in a file. */
export interface MediaInfo {
  kind: 'audio' | 'image' | 'video';
  format: MediaFormat;
  /** Measured duration in seconds (audio and video). */
  durationSeconds?: number | undefined;
  /** Pixel size (images and video). */
  width?: number | undefined;
  height?: number | undefined;
  /** Whether a video reference also carries an audio track. */
  hasAudio?: boolean | undefined;
}

/** Each accepted format: its name and label in messages, its kind, and the extension and type it is uploaded with. */
export const FORMATS: Record<
  MediaFormat,
  { name: string; label: string; kind: MediaInfo['kind']; extension: string; contentType: string }
> = {
  wav: { name: 'WAV', label: 'WAV audio', kind: 'audio', extension: 'wav', contentType: 'audio/wav' },
  mp3: { name: 'MP3', label: 'MP3 audio', kind: 'audio', extension: 'mp3', contentType: 'audio/mpeg' },
  jpeg: { name: 'JPEG', label: 'a JPEG image', kind: 'image', extension: 'jpg', contentType: 'image/jpeg' },
  png: { name: 'PNG', label: 'a PNG image', kind: 'image', extension: 'png', contentType: 'image/png' },
  mp4: { name: 'MP4', label: 'an MP4 video', kind: 'video', extension: 'mp4', contentType: 'video/mp4' },
  mov: { name: 'MOV', label: 'a MOV video', kind: 'video', extension: 'mov', contentType: 'video/quicktime' },
};

/**
 * Local media limits: the client's `limits`, and the options of `validateCreateParams`. The spec states audio of 1 to
 * 60 s and, elsewhere, 1 to 180 s; the stricter applies by default.
 */
export interface MediaLimits {
  /** Longest driving audio, in seconds. Raise to 180 only if your account accepts it. @default 60 */
  maxAudioSeconds?: number | undefined;
}
