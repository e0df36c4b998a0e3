import {
  APIConnectionError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  AvatarVideoError,
  MediaValidationError,
  ResponseValidationError,
  UploadInputError,
  VideoCancelledError,
  VideoFailedError,
  VideoNotReadyError,
  WaitTimeoutError,
} from '../index.js';
import { isLoopbackHost } from '../internal/loopback.js';
import { isNeverRetried } from '../internal/retry.js';
import { shorten } from '../internal/shorten.js';
import { messageWithoutAdvice } from '../lib/job-error.js';
import { flagFor } from './flags.js';
import { ExitCode, type Failure, type Session } from './session.js';
import { type Problem, UsageError } from './usage-error.js';

/** What the run knew when it failed: the service address in use, and the job followed (its error may not name it). */
type FailureContext = Partial<Pick<Session, 'serviceAddress' | 'job' | 'proxyInUse' | 'command'>>;

/**
 * Classify what a command threw. `interrupted` says Ctrl-C was pressed: whatever error the abort
 * surfaced as (an abort, a closed stream), the honest report is "interrupted".
 */
export function cliFailure(error: unknown, interrupted: boolean, context: FailureContext = {}): Failure {
  if (interrupted || error instanceof APIUserAbortError) {
    return { exitCode: ExitCode.interrupted, lines: ['interrupted'], json: { error: { type: 'Interrupted', message: 'interrupted' } } };
  }
  const problems = error instanceof UsageError ? error.problems : error instanceof MediaValidationError ? error.issues : undefined;
  if (problems) {
    // A flag says where a problem is; a batch row's problem says so itself (its row and column).
    const flagged = (problem: Problem) => problem.field !== undefined && problem.index === undefined;
    const lines = problems.map((problem) =>
      flagged(problem) ? `${flagFor(problem.field as string)}: ${problem.message}` : problem.message,
    );
    return usage((error as Error).name, lines, { problems });
  }
  // A path that cannot be opened.
  if (error instanceof UploadInputError) return usage(error.name, [error.message], {});

  const known = error instanceof Error ? error : new Error(String(error));
  const message = inCliTerms(known, context);
  const details: Record<string, unknown> = {};
  if (error instanceof APIError) Object.assign(details, { status: error.status, code: error.code, requestId: error.requestId });
  // What kind of connection failure (proxy_auth, tls_certificate, ...), for scripts reading --json.
  if (error instanceof APIConnectionError) details.code = error.code;
  if (error instanceof ResponseValidationError) Object.assign(details, { requestId: error.requestId, problems: error.problems });
  if (error instanceof VideoFailedError) Object.assign(details, { code: error.code, videoId: error.video.id });
  if (error instanceof VideoCancelledError || error instanceof VideoNotReadyError) details.videoId = error.video.id;
  if (error instanceof WaitTimeoutError) details.videoId = error.video?.id;
  // Any error after a create names the job (an abort, a 401 during the wait, a failed save).
  if (error instanceof AvatarVideoError) details.videoId ??= error.videoId;
  // Name the code, request id and video when the message does not already (API messages usually do).
  const facts = Object.entries({ status: 'status', code: 'code', requestId: 'request id', videoId: 'video' })
    .filter(([key]) => details[key] !== undefined && !message.includes(String(details[key])))
    .map(([key, label]) => `${label} ${details[key]}`);
  const lines = [message, ...(facts.length > 0 ? [`(${facts.join(', ')})`] : [])];
  const fix = error instanceof AuthenticationError ? keyFix(context) : connectionFix(error, context);
  if (fix === undefined) return { exitCode: ExitCode.failed, lines, json: { error: { type: known.name, message, ...details } } };
  return {
    exitCode: ExitCode.failed,
    lines: [...lines, `to fix: ${fix}`],
    json: { error: { type: known.name, message, ...details, fix } },
    fix,
  };
}

/**
 * What to change after a 401: the key the CLI sent is AVATAR_VIDEO_API_KEY's (there is no key flag), so that is the
 * variable to name; the likeliest mistake is a key of another service, or a real key sent to the mock.
 */
function keyFix(context: FailureContext): string {
  const mock = `${context.command ?? 'avatar-video'} mock`;
  return `the service did not accept the key in AVATAR_VIDEO_API_KEY: export the key this service issued (for the mock, the one \`${mock}\` prints)`;
}

/**
 * What to change, in the CLI's terms, after a connection failure no retry can fix (internal/retry.ts decides which):
 * the same command unchanged would fail the same way. Undefined for any other error.
 */
function connectionFix(error: unknown, context: FailureContext): string | undefined {
  if (!(error instanceof APIConnectionError) || !isNeverRetried(error.code)) return undefined;
  const server = error.host ? shorten(error.host) : 'the server';
  const proxy = context.proxyInUse;
  switch (error.code) {
    case 'tls_certificate':
      return `if a CA of your own signs ${server}'s certificate, run the command with NODE_EXTRA_CA_CERTS set to that CA's file: NODE_EXTRA_CA_CERTS=/path/ca.pem ${context.command ?? 'avatar-video'} ...`;
    case 'tls_protocol':
      return error.origin === 'api'
        ? `if the service at ${server} speaks plain http, give its address with http:// (--base-url or AVATAR_VIDEO_BASE_URL)`
        : `the file host ${server} the service sent the download to speaks no TLS there: that address is the service's to fix`;
    case 'proxy_auth': {
      const address = `http://user:pass@${proxy?.host ?? 'host:port'}`;
      const where = !proxy || proxy.from === '--proxy' ? `--proxy ${address}` : `${proxy.from}=${address}`;
      return `put the proxy's credentials in its address: ${where}`;
    }
    case 'proxy_refused':
      return `the proxy${proxy ? ` ${proxy.host}` : ''} does not let the request to ${server} through: list that host in NO_PROXY to reach it directly, or have the proxy allow it`;
  }
}

/**
 * The error's message in the CLI's terms: seconds (the unit of --wait-timeout), and for a refused connection, the
 * address that refused and where it came from.
 */
function inCliTerms(error: Error, context: FailureContext): string {
  if (error instanceof WaitTimeoutError) {
    const id = error.video?.id ?? context.job?.id;
    const seen = error.video
      ? `last seen ${error.video.status}${typeof error.video.progress === 'number' ? ` at ${error.video.progress}%` : ''}`
      : 'never seen';
    return `${id ? `Video ${id}` : 'The video'} did not finish within ${+(error.waitTimeout / 1000).toFixed(3)} s (--wait-timeout; ${seen}); the job keeps running on the service.`;
  }
  const refused = error instanceof APIConnectionError ? refusedAddress(error) : undefined;
  const proxy = error instanceof APIConnectionError ? context.proxyInUse : undefined;
  if (proxy) return throughProxy(error, refused, proxy);
  if (refused !== undefined) {
    const service = context.serviceAddress
      ? ` (the service address, ${shorten(context.serviceAddress)}, from --base-url or AVATAR_VIDEO_BASE_URL)`
      : '';
    return `Could not connect to ${refused}${service}: the connection was refused, so nothing was sent. Is the service running there, and is the address right?`;
  }
  // The SDK's advice after a job names SDK calls; the CLI adds the command that goes on instead (resume.ts).
  return messageWithoutAdvice(error);
}

/**
 * A connection failure while a proxy was configured: a refusal by the proxy itself says so; anything else keeps the
 * SDK's message (which names a proxy's refusal itself) and says which proxy was in use and how to bypass it.
 */
function throughProxy(error: Error, refused: string | undefined, proxy: { host: string; from: string }): string {
  const named = `the proxy ${proxy.host} (from ${proxy.from})`;
  if (refused !== undefined && sameAddress(refused, proxy.host)) {
    return `Could not connect to ${named}: the connection was refused. Is the proxy running, and is its address right? (NO_PROXY lists hosts to reach directly.)`;
  }
  const message = messageWithoutAdvice(error);
  return /proxy/i.test(message) ? message : `${message} (through ${named}; NO_PROXY lists hosts to reach directly)`;
}

/** Whether a refused `host:port` is the proxy's: the same host, or both on this machine, and the same port. */
function sameAddress(refused: string, proxyHost: string): boolean {
  if (refused === proxyHost) return true;
  const [a, b] = [new URL(`http://${refused}`), new URL(`http://${proxyHost}`)];
  const port = (url: URL) => url.port || '80';
  return port(a) === port(b) && isLoopbackHost(a.hostname) && isLoopbackHost(b.hostname);
}

/** `host:port` of a refused connection, from the error's causes; undefined for any other failure. */
function refusedAddress(error: Error): string | undefined {
  for (let cause: unknown = error.cause, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const { code, address, port } = cause as NodeJS.ErrnoException & { address?: string; port?: number };
    if (code !== 'ECONNREFUSED') continue;
    if (address === undefined) return /ECONNREFUSED (\S+)/.exec(cause.message)?.[1] ?? 'the service';
    return `${address.includes(':') ? `[${address}]` : address}${port === undefined ? '' : `:${port}`}`;
  }
  return undefined;
}

function usage(type: string, lines: string[], extra: Record<string, unknown>): Failure {
  return { exitCode: ExitCode.usage, lines, json: { error: { type, message: lines.join('\n'), ...extra } } };
}
