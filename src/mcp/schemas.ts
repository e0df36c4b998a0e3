import { z } from 'zod';

/** The tools' input and output schemas: what tools/list shows clients, and what the SDK checks each call against. */

const path = (what: string) => z.string().min(1).describe(`${what}: a local file path inside the allowed roots (no URL, no base64)`);
const videoId = z.string().min(1).describe('The id of a video job, as generate_video or list_videos gave it');
const waitSeconds = z
  .number()
  .min(0)
  .optional()
  .describe('How long to wait for the job in this call, in seconds (default 45, never more than the server allows)');
const outputPath = z
  .string()
  .min(1)
  .optional()
  .describe('Where to save the MP4, a local path inside the allowed roots (default: beside the audio, named after it)');
const overwrite = z.boolean().optional().describe('Replace a file already at output_path (default false: refused)');

const media = z.object({
  kind: z.string(),
  format: z.string(),
  duration_seconds: z.number().optional(),
  width: z.number().optional(),
  height: z.number().optional(),
});

const issue = z.object({ field: z.string().optional(), code: z.string(), message: z.string() });

export const validateInput = {
  audio_path: path('The driving audio, WAV or MP3, 1 to 60 s'),
  image_path: path('The portrait, JPEG or PNG (give this or video_path)').optional(),
  video_path: path('A video of the person, MP4 or MOV (give this or image_path)').optional(),
};

export const validateOutput = {
  valid: z.boolean(),
  audio: media.optional(),
  visual: media.optional(),
  generation_mode: z.string().optional(),
  warnings: z.array(z.string()),
  issues: z.array(issue),
};

export const generateInput = {
  ...validateInput,
  model: z.string().optional().describe('The model to use (default: the service default)'),
  output_path: outputPath,
  overwrite,
  wait_seconds: waitSeconds,
  allow_segments: z
    .boolean()
    .optional()
    .describe('Make audio longer than one job allows (60 s) as several jobs joined; a repeated call resumes them'),
};

/** What generate_video and wait_for_video give: the job, and the saved file once it is COMPLETE. */
export const jobOutput = {
  video_id: z
    .string()
    .optional()
    .describe('The job; absent for audio made in segments (allow_segments), whose MP4 is path and whose jobs are segment_ids'),
  status: z.string().describe('QUEUED or PROCESSING (still running, as is a status not listed here), COMPLETE, FAILED or CANCELLED'),
  progress: z.number().nullable().describe('Percent done, 0 to 100; null when the service gives none'),
  eta_seconds: z.number().nullable().describe('Estimated seconds left; null when unknown'),
  path: z.string().optional().describe('Absolute path of the saved MP4, once saved'),
  bytes: z.number().optional(),
  content_type: z.string().optional(),
  segment_ids: z
    .array(z.string())
    .optional()
    .describe('Audio made in segments: the jobs joined into path, each one part only (never download one for the whole video)'),
  next: z.string().describe('What to do next'),
};

export const waitInput = { video_id: videoId, wait_seconds: waitSeconds, output_path: outputPath, overwrite };

export const videoOutput = {
  video_id: z.string(),
  status: z.string(),
  progress: z.number().nullable(),
  created_at: z.number().optional(),
  completed_at: z.number().nullable().optional(),
  error: z.object({ code: z.string().optional(), message: z.string().optional() }).nullable().optional(),
  model: z.string().nullable().optional(),
  generation_mode: z.string().nullable().optional(),
  aspect_ratio: z.string().nullable().optional(),
  share_link_url: z.string().nullable().optional().describe("The service's link to share the finished video, when it gives one"),
  path: z.string().optional().describe('Where this server already saved the MP4, when it did and the file is still there'),
  next: z.string(),
};

export const getInput = { video_id: videoId };

export const listInput = {
  limit: z.number().int().min(1).max(100).optional().describe('Videos to list, 1 to 100 (default 20), newest first'),
  after: z.string().optional().describe('List the videos after this id (the last id of a previous page)'),
};

export const listOutput = {
  videos: z.array(
    z.object({ video_id: z.string(), status: z.string(), progress: z.number().nullable(), created_at: z.number().optional() }),
  ),
  has_more: z.boolean(),
  last_id: z.string().nullable(),
};

export const downloadInput = { video_id: videoId, output_path: outputPath, overwrite };

export const downloadOutput = { video_id: z.string(), path: z.string(), bytes: z.number(), content_type: z.string() };

export const urlOutput = {
  video_id: z.string(),
  url: z.string().describe('The signed address: a secret (anyone holding it can fetch the video) that expires'),
};
