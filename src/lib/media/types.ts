/** Container or image format, read from the bytes (never from a file name or a declared type). */
export type MediaFormat = 'wav' | 'mp3' | 'jpeg' | 'png' | 'mp4' | 'mov';

/** What {@link probeMedia} found in a file. */
export interface MediaInfo {
  kind: 'audio' | 'image' | 'video';
  format: MediaFormat;
  /** Measured duration in seconds (audio and video). */
  durationSeconds?: number;
  /** Pixel size (images and video). */
  width?: number;
  height?: number;
  /** Whether a video reference also carries an audio track. */
  hasAudio?: boolean;
}

export type { MediaIssueCode, MediaValidationIssue } from '../../errors.js';
