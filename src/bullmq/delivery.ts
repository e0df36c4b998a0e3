import { InvalidArgumentError, VERSION } from 'avatar-video';
import type { Job } from 'bullmq';
import type { Agent } from 'undici';
import { undici } from '../internal/undici-dispatches.js';
import { VIDEO_EVENT_TYPES, type VideoEventType } from '../webhooks/event.js';
import { signEvent } from '../webhooks/sign.js';
import { guardedLookup, literalAddressProblem, RefusedAddressError } from './address-guard.js';
import type { DeliveryJobData } from './delivery-job.js';
import { WebhookDeliveryError } from './errors.js';
import { notifyUrlProblem } from './notify-url.js';

export interface DeliveryProcessorOptions {
  /**
   * The signing secret: `whsec_` and the base64 of at least 24 random bytes, as Standard Webhooks' secrets are
   * (`whsec_$(openssl rand -base64 32)`). Receivers verify with the same (`verifyWebhook` of avatar-video/webhooks).
   * Checked here, never printed.
   */
  secret: string;
  /**
   * Deliver to loopback, private, link-local (cloud metadata), multicast and other internal addresses too. Off, the
   * addresses a notify URL's host resolves to are checked as the connection is opened, and a delivery to such an
   * address fails at once without being tried again: whoever can register a notify URL cannot make the workers
   * reach internal services. Set it for receivers on the same machine or network (and in tests).
   * @default false
   */
  allowPrivateNotifyUrls?: boolean | undefined;
  /** How long one try may take, from opening the connection to the receiver's answer, in ms. @default 10000 */
  timeoutMs?: number | undefined;
}

/** A delivery's result, BullMQ's `returnvalue`: the event and the receiver's 2xx status. */
export interface DeliveryResult {
  eventId: string;
  type: VideoEventType;
  status: number;
}

/** What the delivery processor uses of a BullMQ job. */
export type DeliveryJobHandle = Pick<Job<DeliveryJobData, DeliveryResult>, 'data'>;

/** A BullMQ processor of delivery jobs; it takes the `signal` BullMQ passes (since 5.64), which ends a try. */
export type DeliveryProcessor = (job: DeliveryJobHandle, token?: string, signal?: AbortSignal) => Promise<DeliveryResult>;

/** Longest event body sent: an event is a video object, a few KB; anything larger is not one of ours. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** Most of a receiver's answer read (for the failure's message), the rest dropped. */
const MAX_ANSWER_BYTES = 4 * 1024;
/** Shortest secret, in bytes: the Standard Webhooks specification's lower bound. */
const MIN_SECRET_BYTES = 24;
const SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/**
 * A BullMQ processor for the jobs of the delivery queue (`deliveryJob`, which `createVideoProcessor` and
 * `createWatchProcessor` add): it POSTs the job's event to its notify URL, signed as Standard Webhooks say
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`). Each try is signed anew, at its own time, with the
 * event's id as `webhook-id`: a receiver de-duplicates on it. A 2xx answer completes the job; any other answer, a
 * lost connection or a timeout throws a `WebhookDeliveryError`, and BullMQ tries again with the job's attempts and
 * backoff (15 tries over about 9 hours). Redirects are not followed (a 3xx fails the job, as does an address refused:
 * see `allowPrivateNotifyUrls`), and the answer's body is read to 4 KB at most. A worker killed before the answer
 * leaves the job to BullMQ's stalled-job check, which runs it again: at least once, maybe twice, never zero times.
 * @throws InvalidArgumentError for a secret that is not `whsec_` and base64 of 24 bytes or more, or a timeout that is
 * not a positive number.
 */
export function createDeliveryProcessor(options: DeliveryProcessorOptions): DeliveryProcessor {
  const { secret, allowPrivateNotifyUrls = false, timeoutMs = 10_000 } = options ?? ({} as DeliveryProcessorOptions);
  checkSecret(secret);
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs))
    throw new InvalidArgumentError('timeoutMs', 'createDeliveryProcessor: timeoutMs must be a positive number of ms');
  const { Agent } = undici();
  const agent = new Agent({
    connect: { timeout: timeoutMs, ...(allowPrivateNotifyUrls ? {} : { lookup: guardedLookup }) },
    keepAliveTimeout: 4_000,
  });
  const send = { agent, secret, allowPrivateNotifyUrls, timeoutMs };
  // Three parameters: BullMQ passes the signal only to a processor whose `length` is 3.
  return async (job, _token, signal) => deliver(job.data, send, signal);
}

interface Sender {
  agent: Agent;
  secret: string;
  allowPrivateNotifyUrls: boolean;
  timeoutMs: number;
}

/** One try: the job's data checked, the event signed now, POSTed, its answer judged. */
async function deliver(data: DeliveryJobData, sender: Sender, signal: AbortSignal | undefined): Promise<DeliveryResult> {
  const url = targetOf(data);
  const origin = url.origin;
  if (!sender.allowPrivateNotifyUrls) {
    const refused = literalAddressProblem(url);
    if (refused !== undefined) throw refusal(refused, origin);
  }
  const { body, headers } = signEvent(data.event, sender.secret);
  const bytes = new TextEncoder().encode(body).byteLength;
  if (bytes > MAX_EVENT_BYTES)
    throw permanent(`event ${data.event.id} is ${bytes} bytes; an event is at most ${MAX_EVENT_BYTES}: it is not sent`, origin);
  const timeout = AbortSignal.timeout(sender.timeoutMs);
  let status: number;
  let answer: string;
  try {
    const response = await sender.agent.request({
      origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...headers, 'user-agent': `avatar-video/${VERSION} (webhook delivery)` },
      body,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      headersTimeout: sender.timeoutMs,
      bodyTimeout: sender.timeoutMs,
    });
    status = response.statusCode;
    answer = await readSome(response.body, MAX_ANSWER_BYTES);
  } catch (error) {
    throw sendFailure(error, origin, timeout.aborted ? sender.timeoutMs : undefined);
  }
  return judge(data, status, answer, origin);
}

/** The result of a 2xx; otherwise throws the error that says what the receiver answered. */
function judge(data: DeliveryJobData, status: number, answer: string, origin: string): DeliveryResult {
  if (status >= 200 && status < 300) return { eventId: data.event.id, type: data.event.type, status };
  if (status >= 300 && status < 400) {
    const message = `${origin} answered ${status}, a redirect, which a delivery does not follow: give the final URL as the notify URL`;
    throw new WebhookDeliveryError(message, { origin, status, permanent: true });
  }
  const said = answer.trim() === '' ? '' : `: ${JSON.stringify(answer.replace(/\s+/g, ' ').trim().slice(0, 200))}`;
  throw new WebhookDeliveryError(`${origin} answered ${status}${said}`, { origin, status, permanent: false });
}

/** The notify URL of a job, checked again (job data can be written by anyone with the Redis): a bad one fails the job for good. */
function targetOf(data: DeliveryJobData): URL {
  const problem = notifyUrlProblem(data?.notifyUrl);
  if (problem !== undefined) throw permanent(`job data: notifyUrl ${problem}`, undefined);
  const url = new URL(data.notifyUrl);
  const event = data.event as Partial<DeliveryJobData['event']> | undefined;
  const isEvent =
    typeof event?.id === 'string' && VIDEO_EVENT_TYPES.includes(event.type as VideoEventType) && typeof event.data?.id === 'string';
  if (!isEvent) throw permanent('job data: event is not a video event ({ id, type, timestamp, data })', url.origin);
  return url;
}

/** A try's failure to send or to read the answer: a refused address for good, anything else to try again. */
function sendFailure(error: unknown, origin: string, timedOutAfter: number | undefined): WebhookDeliveryError {
  const refused = refusedIn(error);
  if (refused !== undefined) return refusal(refused, origin);
  if (timedOutAfter !== undefined)
    return new WebhookDeliveryError(`${origin} did not answer within ${timedOutAfter} ms`, { origin, permanent: false, cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new WebhookDeliveryError(`could not deliver to ${origin}: ${message}`, { origin, permanent: false, cause: error });
}

function refusal(refused: RefusedAddressError, origin: string): WebhookDeliveryError {
  return permanent(
    `refused to deliver to ${origin}: ${refused.message}. Set allowPrivateNotifyUrls to deliver to internal addresses`,
    origin,
  );
}

function permanent(message: string, origin: string | undefined): WebhookDeliveryError {
  return new WebhookDeliveryError(message, { origin, permanent: true });
}

/** The RefusedAddressError along `error`'s causes (undici may wrap the connection's error), if any. */
function refusedIn(error: unknown): RefusedAddressError | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    if (at instanceof RefusedAddressError) return at;
  }
  return undefined;
}

/** The first `limit` bytes of a body as text, the rest dropped (the connection is not kept for a body left unread). */
async function readSome(body: AsyncIterable<Uint8Array> & { destroy(): unknown }, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit));
}

/** @throws InvalidArgumentError naming `secret`, never showing it. */
function checkSecret(secret: unknown): void {
  const problem = secretProblem(secret);
  if (problem !== undefined) throw new InvalidArgumentError('secret', `createDeliveryProcessor: secret ${problem}`);
}

/**
 * What is wrong with `secret` as a signing secret, without quoting it, or undefined: `whsec_` and the base64 of at
 * least 24 bytes. The relay checks its environment's secret with it too.
 */
export function secretProblem(secret: unknown): string | undefined {
  const base64 = typeof secret === 'string' ? SECRET.exec(secret)?.[1] : undefined;
  const bytes = base64 === undefined ? 0 : (base64.length / 4) * 3 - (base64.match(/=+$/)?.[0].length ?? 0);
  if (bytes >= MIN_SECRET_BYTES) return undefined;
  return `must be whsec_ and the base64 of at least ${MIN_SECRET_BYTES} random bytes (whsec_$(openssl rand -base64 32)); the one given is not`;
}
