/**
 * The relay's names and defaults, which its command's help shows: apart from the settings, whose checks use
 * avatar-video/bullmq's rules, so that registering the command loads none of that.
 */

/** The variable holding the bearer token of the relay's HTTP API. */
export const TOKEN_VARIABLE = 'AVATAR_VIDEO_RELAY_TOKEN';
/** The variable holding the Standard Webhooks signing secret (`whsec_...`) the receivers verify with. */
export const SECRET_VARIABLE = 'AVATAR_VIDEO_WEBHOOK_SECRET';
/** Shortest token taken: a guessable token would let anyone on the network make the relay post to any URL. */
export const MIN_TOKEN_LENGTH = 16;
/** The relay's port unless `--port` says. */
export const DEFAULT_PORT = 8788;
/** The queues' names start with this unless `--queue-prefix` says. */
export const DEFAULT_QUEUE_PREFIX = 'avatar-video';

/** The command's flags, as commander gives them. */
export interface RelayFlags {
  redis: string;
  host: string;
  port: number;
  queuePrefix: string;
  allowPrivateNotifyUrls?: boolean;
}
