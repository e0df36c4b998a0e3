/**
 * How long a tool call may run. Clients cut calls at about 60 s (Claude Desktop, claude.ai, the SDK's own client
 * without progress resets), and Claude Code moves calls past 120 s to the background where the result is lost.
 */

/** The call budget when AVATAR_VIDEO_MCP_MAX_WAIT is not set: under the 60 s clients allow. */
export const DEFAULT_MAX_WAIT_SECONDS = 55;
/** The most AVATAR_VIDEO_MCP_MAX_WAIT may raise it to: under the 120 s past which a call is lost. */
export const MAX_WAIT_CEILING_SECONDS = 110;
/** How long generate_video and wait_for_video wait for the job when the call does not say. */
export const DEFAULT_WAIT_SECONDS = 45;
/** Of the budget, what is kept after the wait for saving the MP4 and answering. */
export const AFTER_WAIT_SECONDS = 5;

/** The server's call budget from AVATAR_VIDEO_MCP_MAX_WAIT, and a warning when the value was not taken as given. */
export function maxWaitFrom(raw: string | undefined): { seconds: number; warning?: string } {
  const text = raw?.trim() ?? '';
  if (text === '') return { seconds: DEFAULT_MAX_WAIT_SECONDS };
  const value = Number(text);
  if (!Number.isFinite(value) || value <= AFTER_WAIT_SECONDS) {
    const warning = `AVATAR_VIDEO_MCP_MAX_WAIT=${text.slice(0, 20)} is not a number of seconds above ${AFTER_WAIT_SECONDS}: using ${DEFAULT_MAX_WAIT_SECONDS}`;
    return { seconds: DEFAULT_MAX_WAIT_SECONDS, warning };
  }
  if (value > MAX_WAIT_CEILING_SECONDS) {
    const warning = `AVATAR_VIDEO_MCP_MAX_WAIT=${text} is above ${MAX_WAIT_CEILING_SECONDS} s, past which clients lose the result: using ${MAX_WAIT_CEILING_SECONDS}`;
    return { seconds: MAX_WAIT_CEILING_SECONDS, warning };
  }
  return { seconds: value };
}

/** One call's plan, in ms from its start: how long to wait for the job, and when everything must have ended. */
export interface CallPlan {
  waitMs: number;
  callMs: number;
}

/**
 * The plan of a call that asked for `requestedSeconds` of waiting (undefined: the default) under a server budget of
 * `maxWaitSeconds`: the wait never runs into the time kept for saving, and the whole call never past the budget.
 */
export function callPlan(requestedSeconds: number | undefined, maxWaitSeconds: number): CallPlan {
  const callMs = Math.round(maxWaitSeconds * 1000);
  const cap = callMs - AFTER_WAIT_SECONDS * 1000;
  const asked = Math.max(0, (requestedSeconds ?? DEFAULT_WAIT_SECONDS) * 1000);
  return { waitMs: Math.round(Math.min(asked, cap)), callMs };
}
