import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Video } from '../index.js';
import { callOf, type Extra } from './context.js';
import { follow, save } from './follow.js';
import { checkMedia, issuesOf, type MediaArgs, mediaOf } from './inputs.js';
import { generateInSegments } from './long.js';
import type { McpServerOptions } from './options.js';
import { admitOutput, defaultOutputFor } from './paths.js';
import type { RecentJobs } from './recent-jobs.js';
import { failureOf, failureResult, success } from './results.js';
import * as schema from './schemas.js';

const NO_CANCEL = 'There is no cancel tool: the API cannot cancel a job.';

/** Register the seven tools on `server`. */
export function registerTools(server: McpServer, options: Required<McpServerOptions>): void {
  const outputs = new Map<string, string>();
  const guard =
    <A>(handler: (args: A, call: ReturnType<typeof callOf>) => Promise<CallToolResult>, waitOf?: (args: A) => number | undefined) =>
    async (args: A, extra: Extra): Promise<CallToolResult> => {
      const call = callOf(server, options, outputs, extra, waitOf?.(args));
      try {
        return await handler(args, call);
      } catch (error) {
        call.log(`tool call failed: ${error instanceof Error ? error.message : String(error)}`);
        return failureResult(failureOf(error));
      } finally {
        call.reporter?.stop();
      }
    };

  server.registerTool(
    'validate_inputs',
    {
      title: 'Check inputs locally',
      description:
        'Check an audio file and a portrait (or video) locally, as generate_video would: formats, durations, sizes, generation mode. ' +
        'Free: no key, no network, nothing created. Paths are local files inside the allowed roots.',
      inputSchema: schema.validateInput,
      outputSchema: schema.validateOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guard(async (args: MediaArgs, call) => {
      try {
        const { checked } = await checkMedia(args, await call.roots(), false);
        const mode = checked.generationMode;
        return success(`Valid: ${checked.audio.format} audio and ${checked.visual.kind} ${checked.visual.format} (${mode}).`, {
          valid: true,
          audio: mediaOf(checked.audio),
          visual: mediaOf(checked.visual),
          generation_mode: mode,
          warnings: checked.warnings,
          issues: [],
        });
      } catch (error) {
        const issues = issuesOf(error);
        if (!issues) throw error;
        return success(`Not valid: ${issues.map((issue) => issue.message).join('; ')}`, { valid: false, warnings: [], issues });
      }
    }),
  );

  server.registerTool(
    'generate_video',
    {
      title: 'Generate a video (paid)',
      description:
        'Create ONE paid video job from a driving audio file and a portrait (image_path) or a video (video_path), wait up to ' +
        'wait_seconds, and save the MP4 to disk when COMPLETE. If the result says PROCESSING, call wait_for_video with its video_id: ' +
        'NEVER call generate_video again for a job still PROCESSING (that creates and pays for a second job). ' +
        `Audio over 60 s needs allow_segments: true (several jobs joined; calling again with the same arguments resumes them). ${NO_CANCEL}`,
      inputSchema: schema.generateInput,
      outputSchema: schema.jobOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    guard(
      async (args: MediaArgs & { output_path?: string; overwrite?: boolean; allow_segments?: boolean; wait_seconds?: number }, call) => {
        const roots = await call.roots();
        const inputs = await checkMedia(args, roots, args.allow_segments === true);
        const output = await admitOutput(
          'output_path',
          args.output_path ?? defaultOutputFor(inputs.params.audio_reference as string),
          roots,
          args.overwrite === true,
        );
        const client = call.client();
        if (inputs.long) return generateInSegments(call, inputs.params, output);
        const video = await client.videos.create(inputs.params, { signal: call.signal });
        call.recent.note(video.id, video.status);
        call.outputs.set(video.id, output);
        call.log(`created video ${video.id}`);
        return follow(call, video.id, output);
      },
      (args) => args.wait_seconds,
    ),
  );

  server.registerTool(
    'wait_for_video',
    {
      title: 'Wait for a video',
      description:
        'Wait (bounded by wait_seconds and the server budget) for a job made by generate_video, and save the MP4 when COMPLETE ' +
        '(to output_path, or where generate_video meant to save it). Call it again while the status is PROCESSING. ' +
        `Waiting costs nothing; ending or cancelling this call leaves the job running. ${NO_CANCEL}`,
      inputSchema: schema.waitInput,
      outputSchema: schema.jobOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    guard(
      async (args: { video_id: string; output_path?: string; overwrite?: boolean; wait_seconds?: number }, call) => {
        const planned = args.output_path ?? call.outputs.get(args.video_id);
        const output =
          planned === undefined ? undefined : await admitOutput('output_path', planned, await call.roots(), args.overwrite === true);
        return follow(call, args.video_id, output);
      },
      (args) => args.wait_seconds,
    ),
  );

  const getVideo = server.registerTool(
    'get_video',
    {
      title: 'Get a video job',
      description: getVideoDescription(options.recent),
      inputSchema: schema.getInput,
      outputSchema: schema.videoOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    guard(async (args: { video_id: string }, call) => {
      const video = await call.client().videos.retrieve(args.video_id, { signal: call.signal });
      call.recent.note(video.id, video.status);
      return success(`Video ${video.id}: ${video.status}${typeof video.progress === 'number' ? ` ${video.progress}%` : ''}.`, {
        ...videoFields(video),
        next: nextFor(video),
      });
    }),
  );
  const stopDescribing = describeRecentJobs(getVideo, options.recent);
  // The job list outlives this server (mcp --http shares it between sessions): a closed server stops listening to it.
  const closed = server.server.onclose;
  server.server.onclose = () => {
    stopDescribing();
    closed?.();
  };

  server.registerTool(
    'list_videos',
    {
      title: 'List video jobs',
      description: "List the account's video jobs, newest first: find a job whose call was cut off or cancelled (jobs keep running).",
      inputSchema: schema.listInput,
      outputSchema: schema.listOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    guard(async (args: { limit?: number; after?: string }, call) => {
      const page = await call.client().videos.list({ limit: args.limit, after: args.after }, { signal: call.signal });
      const videos = page.data.map((video) => ({
        video_id: video.id,
        status: video.status,
        progress: video.progress ?? null,
        created_at: video.created_at,
      }));
      return success(`${videos.length} videos${videos.length ? `: ${videos.map((v) => `${v.video_id} ${v.status}`).join(', ')}` : ''}.`, {
        videos,
        has_more: page.hasNextPage(),
        last_id: page.last_id,
      });
    }),
  );

  server.registerTool(
    'download_video',
    {
      title: 'Save a video to disk',
      description:
        'Save the MP4 of a COMPLETE video to output_path (default: <video_id>.mp4 in the first allowed root); never over an existing file ' +
        'without overwrite: true. Gives the absolute path and bytes, plus a resource_link to the file; the video is never sent inline.',
      inputSchema: schema.downloadInput,
      outputSchema: schema.downloadOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    guard(async (args: { video_id: string; output_path?: string; overwrite?: boolean }, call) => {
      const roots = await call.roots();
      const output = await admitOutput('output_path', args.output_path ?? `${args.video_id}.mp4`, roots, args.overwrite === true);
      const result = await save(call, args.video_id, output);
      if (result.isError || !(result.structuredContent as { path?: string }).path) return result;
      const { video_id, path, bytes, content_type } = result.structuredContent as Record<string, unknown>;
      return { ...result, structuredContent: { video_id, path, bytes, content_type } };
    }),
  );

  server.registerTool(
    'get_video_url',
    {
      title: 'Get the signed address of a video',
      description:
        "The signed address of a COMPLETE video's MP4, for a player or another service. It is a SECRET (anyone holding it can fetch the " +
        'video) and it EXPIRES: do not store or share it; ask again when needed. Prefer download_video to save the file.',
      inputSchema: schema.getInput,
      outputSchema: schema.urlOutput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    guard(async (args: { video_id: string }, call) => {
      const url = await call.client().videos.contentURL(args.video_id, { signal: call.signal });
      // The one result that carries a signed address, by design: not cleaned.
      return {
        content: [{ type: 'text', text: `Signed address of video ${args.video_id} (a secret that expires): ${url}` }],
        structuredContent: { video_id: args.video_id, url },
      };
    }),
  );
}

function videoFields(video: Video) {
  return {
    video_id: video.id,
    status: video.status,
    progress: video.progress ?? null,
    created_at: video.created_at,
    completed_at: video.completed_at,
    error: video.error ? { code: video.error.code ?? undefined, message: video.error.message ?? undefined } : null,
    model: video.model ?? null,
    generation_mode: video.generation_mode,
    aspect_ratio: video.aspect_ratio,
  };
}

function nextFor(video: Video): string {
  if (video.status === 'COMPLETE') return 'call download_video to save the MP4';
  if (video.status === 'PROCESSING') return 'call wait_for_video with this video_id';
  return 'the job ended without a video; a new generate_video call is a new paid job';
}

/** get_video's description, with this process's recent jobs: an id whose call was cut off is found here. */
function getVideoDescription(recent: RecentJobs): string {
  const jobs = recent.list();
  const listed = jobs.length === 0 ? 'none yet' : jobs.map((job) => `${job.id} (${job.status}, ${job.seen})`).join('; ');
  return `Read a video job's status and progress (no waiting). Recent jobs of this server: ${listed}. ${NO_CANCEL}`;
}

/** Keep get_video's description current (clients hear tools/list_changed), until the returned function is called. */
function describeRecentJobs(tool: RegisteredTool, recent: RecentJobs): () => void {
  const stop = recent.onChange(() => tool.update({ description: getVideoDescription(recent) }));
  return () => void stop();
}
