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

/** Codes of {@link MediaValidationIssue}. */
export type MediaIssueCode =
  | 'missing_audio'
  | 'missing_visual_reference'
  | 'multiple_visual_references'
  | 'unknown_field'
  | 'unsupported_format'
  | 'unreadable_media'
  | 'duration_out_of_range';

/** One problem found by local validation. */
export interface MediaValidationIssue {
  /** The create parameter it concerns: `audio_reference`, `image_reference`, `video_reference`, `model`, or an unknown field's name. */
  field: string;
  code: MediaIssueCode;
  /** Names the file, what was found and what is allowed. */
  message: string;
}
