import { checkMedia, type MediaArgs } from '../inputs.js';
import { runVideo } from '../job.js';
import { generateInSegments } from '../long.js';
import { admitOutput, defaultOutputFor } from '../paths.js';
import * as schema from '../schemas.js';
import { NO_CANCEL, tool } from '../tool.js';

type GenerateArgs = MediaArgs & { output_path?: string; overwrite?: boolean; allow_segments?: boolean; wait_seconds?: number };

/**
 * generate_video: one paid job (or, with allow_segments, a long video's jobs) made by the client's job runner, as
 * `videos.generate` makes it, waited on within the call and saved when COMPLETE.
 */
export const generateVideo = tool({
  name: 'generate_video',
  title: 'Generate a video (paid)',
  description:
    'Create ONE paid video job from a driving audio file and a portrait (image_path) or a video (video_path), wait up to ' +
    'wait_seconds, and save the MP4 to disk when COMPLETE. If the result says QUEUED or PROCESSING (still running), call ' +
    'wait_for_video with its video_id: NEVER call generate_video again for a job still running (that pays for a second job). ' +
    `Audio over 60 s needs allow_segments: true (several jobs joined; calling again with the same arguments resumes them). ${NO_CANCEL}`,
  inputSchema: schema.generateInput,
  outputSchema: schema.jobOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  waitOf: (args: GenerateArgs) => args.wait_seconds,
  async run(args: GenerateArgs, call) {
    const roots = await call.roots();
    const inputs = await checkMedia(args, roots, args.allow_segments === true);
    const planned = args.output_path ?? defaultOutputFor(inputs.params.audio_reference as string);
    const output = await admitOutput('output_path', planned, roots, args.overwrite === true);
    if (inputs.long) return generateInSegments(call, inputs.params, output);
    return runVideo(call, { params: inputs.params, output, retry: 'call generate_video again: nothing was created for this call' });
  },
});
