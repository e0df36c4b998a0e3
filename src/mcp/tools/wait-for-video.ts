import { alreadySaved, follow } from '../follow.js';
import { runVideo } from '../job.js';
import { admitOutput } from '../paths.js';
import * as schema from '../schemas.js';
import { NO_CANCEL, tool } from '../tool.js';

type WaitArgs = { video_id: string; output_path?: string; overwrite?: boolean; wait_seconds?: number };

/**
 * wait_for_video: a job this server made is taken up by the client's job runner (in its place under the client's
 * limit, made again from the same inputs if it FAILED for a rate limit); any other id is waited on by its id alone.
 */
export const waitForVideo = tool({
  name: 'wait_for_video',
  title: 'Wait for a video',
  description:
    'Wait (bounded by wait_seconds and the server budget) for a job made by generate_video, and save the MP4 when COMPLETE ' +
    '(to output_path, or where generate_video meant to save it). Call it again while the job runs (QUEUED, PROCESSING). ' +
    `Waiting costs nothing; ending or cancelling this call leaves the job running. ${NO_CANCEL}`,
  inputSchema: schema.waitInput,
  outputSchema: schema.jobOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  waitOf: (args: WaitArgs) => args.wait_seconds,
  async run(args: WaitArgs, call) {
    // Saved already by this process (a generate_video that finished): the file is the answer, not a save refused.
    const saved = args.overwrite === true ? undefined : await alreadySaved(call, args.video_id, args.output_path);
    if (saved) return saved;
    const made = call.jobs.get(args.video_id);
    const planned = args.output_path ?? made?.output;
    const output =
      planned === undefined ? undefined : await admitOutput('output_path', planned, await call.roots(), args.overwrite === true);
    // Under a second left: one look at the job, not a run that could not poll.
    if (made === undefined || output === undefined || call.leftMs('waitMs') < 1000) return follow(call, args.video_id, output);
    const retry = `call wait_for_video with video_id ${args.video_id} again: it makes the job again (nothing new was created)`;
    return runVideo(call, { params: made.params, output, videoId: args.video_id, retry });
  },
});
