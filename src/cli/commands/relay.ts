import { type Command, Option } from 'commander';
import { port } from '../flags.js';
import { DEFAULT_PORT, DEFAULT_QUEUE_PREFIX, MIN_TOKEN_LENGTH, type RelayFlags, SECRET_VARIABLE, TOKEN_VARIABLE } from '../relay/names.js';
import type { Session } from '../session.js';

const USAGE = `
Watches: a job made elsewhere (a browser through avatar-video/proxy, another service, any language) is registered
with the relay, which polls it on the SDK's schedule and, once it settles, POSTs a signed event to notify_url:

  curl -X POST http://127.0.0.1:${DEFAULT_PORT}/watches -H "Authorization: Bearer $${TOKEN_VARIABLE}" \\
    -H 'content-type: application/json' -d '{"video_id": "vid_123", "notify_url": "https://example.com/hooks/video"}'
  -> 202 {"id": "watch-...", "video_id": "vid_123", "state": "waiting", "polls": 0}  (200 if the watch was there)
  curl http://127.0.0.1:${DEFAULT_PORT}/watches/watch-... -H "Authorization: Bearer $${TOKEN_VARIABLE}"
  -> {"id", "video_id", "state": waiting|polling|delivering|delivered|failed, "polls", "event_id", ...}

Events follow Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers): check them with
verifyWebhook from avatar-video/webhooks, or any Standard Webhooks library, and the same secret. A receiver that
answers other than 2xx, or cannot be reached, is tried again for about 9 hours with the same webhook-id.
Notify URLs on loopback or private addresses are refused unless --allow-private-notify-urls; redirects are not
followed. Watches and deliveries live in Redis: run as many relays on one Redis as you like, and a relay that
stops leaves its work to the others. A watch ends after 1 hour (video.failed, reason watch_timed_out).

Environment:
  ${TOKEN_VARIABLE.padEnd(28)} bearer token of the HTTP API, at least ${MIN_TOKEN_LENGTH} characters:
                               export ${TOKEN_VARIABLE}="$(openssl rand -base64 32)"
  ${SECRET_VARIABLE.padEnd(28)} signing secret of the events, shared with the receivers:
                               export ${SECRET_VARIABLE}="whsec_$(openssl rand -base64 32)"
  AVATAR_VIDEO_API_KEY, AVATAR_VIDEO_BASE_URL  the service, as for every command (the key never leaves the relay)
Needs bullmq and ioredis installed beside avatar-video (npm install bullmq ioredis).`;

export function registerRelay(program: Command, session: Session): void {
  program
    .command('relay')
    .description(
      'be the webhook the service lacks: watch video jobs made anywhere and POST a signed event to a URL when each settles, ' +
        'from BullMQ workers on Redis, with an HTTP API to register watches',
    )
    .requiredOption('--redis <url>', 'Redis: redis://[:password@]host:6379[/db], rediss://... (TLS), or a Unix socket path')
    .option('--host <address>', 'address the HTTP API listens on (plain http: keep it on a network you trust)', '127.0.0.1')
    .addOption(new Option('--port <port>', 'port of the HTTP API (0: any free one)').argParser(port).default(DEFAULT_PORT))
    .option('--queue-prefix <name>', 'the queues are <name>-watches and <name>-deliveries', DEFAULT_QUEUE_PREFIX)
    .option('--allow-private-notify-urls', 'deliver to loopback and private addresses too (for receivers on your own network)')
    .addHelpText('after', USAGE)
    .action(async (flags: RelayFlags) => {
      // Loaded on use: no other command needs the relay, or BullMQ.
      const { runRelay } = await import('../relay/run.js');
      await runRelay(flags, session);
    });
}
