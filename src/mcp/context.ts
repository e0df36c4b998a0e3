import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AvatarVideo, VideoCreateParams } from '../index.js';
import { type CallPlan, callPlan } from './budget.js';
import { CallEta } from './eta.js';
import { ServerSetupError } from './hints.js';
import type { McpServerOptions } from './options.js';
import { realRoots } from './paths.js';
import { ProgressReporter } from './progress-reporter.js';
import type { RecentJobs } from './recent-jobs.js';
import { clean } from './results.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A job this server made: the inputs to make it again and where its MP4 goes, for wait_for_video. */
export interface PlannedJob {
  params: VideoCreateParams;
  output: string;
}

/** What each tool call works with: its budget, its cancellation, its progress, the roots and the client. */
export interface Call {
  /** Milliseconds left of the call's wait (`waitMs`) or of the whole call (`callMs`), from its plan; negative once past. */
  leftMs: (part: keyof CallPlan) => number;
  /** Fires when the client cancels the call (notifications/cancelled) or the connection closes. */
  signal: AbortSignal;
  /** Undefined when the client sent no progressToken. */
  reporter: ProgressReporter | undefined;
  roots: () => Promise<string[]>;
  client: () => AvatarVideo;
  recent: RecentJobs;
  /** The time left to report for a job: this call's estimate, or until it has one the process's last (eta.ts). */
  eta: CallEta;
  /** The jobs this server made, by id: wait_for_video saves where generate_video meant to, and makes a job again from its inputs. */
  jobs: Map<string, PlannedJob>;
  log: (line: string) => void;
}

/** The per-call context of one request. */
export function callOf(
  server: McpServer,
  options: Required<McpServerOptions>,
  jobs: Map<string, PlannedJob>,
  extra: Extra,
  waitSeconds?: number,
): Call {
  const token = extra._meta?.progressToken;
  const log = (line: string) => options.log(clean(line));
  const reporter =
    token === undefined
      ? undefined
      : new ProgressReporter(
          (progress, total, message) =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress, total, message: clean(message) },
            }),
          log,
        );
  const plan = callPlan(waitSeconds, options.maxWaitSeconds);
  const started = Date.now();
  return {
    leftMs: (part) => plan[part] - (Date.now() - started),
    signal: extra.signal,
    reporter,
    roots: () => rootsOf(server, options, extra.requestId),
    client: () => clientOf(options),
    recent: options.recent,
    eta: new CallEta(options.recent),
    jobs,
    log,
  };
}

/** The API client; one that cannot be made is the server's configuration at fault, which a result says how to fix. */
function clientOf(options: Required<McpServerOptions>): AvatarVideo {
  try {
    return options.client();
  } catch (error) {
    throw new ServerSetupError(error);
  }
}

/**
 * The client's roots (roots/list) when it declares the capability and names at least one, else the fallback. The
 * request rides on the tool call's own stream (`relatedRequestId`): over HTTP, one sent apart goes to the session's
 * GET stream, which the client may not have opened yet, and is then dropped, leaving the call to time out.
 */
async function rootsOf(server: McpServer, options: Required<McpServerOptions>, callId: Extra['requestId']): Promise<string[]> {
  if (server.server.getClientCapabilities()?.roots) {
    const listed = await server.server.listRoots(undefined, { relatedRequestId: callId }).catch((error: unknown) => {
      options.log(`roots/list failed, using the fallback roots: ${String(error)}`);
      return { roots: [] };
    });
    const folders = listed.roots.filter((root) => root.uri.startsWith('file://')).map((root) => fileURLToPath(root.uri));
    if (folders.length > 0) return realRoots(folders);
  }
  return realRoots(options.roots.fallback);
}
