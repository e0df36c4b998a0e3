/**
 * What POST /v1/videos accepts, from the spec (sections 4 and 8): the mock's one copy, used by its checks
 * (create.ts) and its documented error table (responses.ts). It is written from the spec rather than taken
 * from the SDK on purpose: the mock stands for the service, so a wrong limit in the SDK must show against it.
 */

/** A format the mock recognises by its magic bytes (measure.ts). */
export type Format = 'wav' | 'mp3' | 'jpeg' | 'png' | 'mp4' | 'mov';
export type Part = 'audio_reference' | 'image_reference' | 'video_reference';

/** The models the service knows; the first is its default. */
export const MODELS = ['service-avatar-x', 'service-video-1-latest'] as const;

/** Each file part: its formats, how a message names them, and its inclusive duration range in seconds. */
export const PARTS: Record<Part, { formats: Format[]; label: string; seconds?: [number, number] }> = {
  audio_reference: { formats: ['wav', 'mp3'], label: 'WAV or MP3', seconds: [1, 60] },
  image_reference: { formats: ['jpeg', 'png'], label: 'JPEG or PNG' },
  video_reference: { formats: ['mp4', 'mov'], label: 'MP4 or MOV', seconds: [10, 60] },
};

/** Every form field allowed; no other may be sent. */
export const FIELDS = [...(Object.keys(PARTS) as Part[]), 'model'];

/** `'a' or 'b'`, the way FastAPI lists a literal's values. */
export const MODEL_CHOICES = MODELS.map((name) => `'${name}'`).join(' or ');
