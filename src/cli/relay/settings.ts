/**
 * What `avatar-video relay` runs with, read from its flags and the environment and checked before anything starts:
 * every problem is reported at once, and none of them prints a secret's value.
 */
import { isLoopbackHost } from '../../internal/loopback.js';
import { type Problem, UsageError } from '../usage-error.js';
import { MIN_TOKEN_LENGTH, type RelayFlags, SECRET_VARIABLE, TOKEN_VARIABLE } from './names.js';

export type { RelayFlags };

import { secretProblem } from './pieces.js';

/** A Redis server: `url` for BullMQ's `connection: { url }`, `shown` for messages (no user or password). */
export interface RedisTarget {
  url: string;
  shown: string;
}

export interface RelaySettings {
  token: string;
  secret: string;
  redis: RedisTarget;
  host: string;
  port: number;
  queues: { watch: string; delivery: string };
  allowPrivateNotifyUrls: boolean;
}

/** The settings from `flags` and `env`. @throws UsageError listing every problem, each naming its flag or variable. */
export function relaySettings(flags: RelayFlags, env: NodeJS.ProcessEnv): RelaySettings {
  const problems: Problem[] = [];
  const check = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  };
  const token = check(() => tokenFrom(env[TOKEN_VARIABLE]));
  const secret = check(() => secretFrom(env[SECRET_VARIABLE]));
  const redis = check(() => redisTarget(flags.redis));
  const prefix = check(() => queuePrefix(flags.queuePrefix));
  if (problems.length > 0) throw new UsageError(problems);
  return {
    token: token as string,
    secret: secret as string,
    redis: redis as RedisTarget,
    host: flags.host,
    port: flags.port,
    queues: { watch: `${prefix}-watches`, delivery: `${prefix}-deliveries` },
    allowPrivateNotifyUrls: flags.allowPrivateNotifyUrls === true,
  };
}

function tokenFrom(value: string | undefined): string {
  const token = value?.trim() ?? '';
  const make = `export ${TOKEN_VARIABLE}="$(openssl rand -base64 32)"`;
  if (token === '') {
    return fail('missing_relay_token', `${TOKEN_VARIABLE} is not set: it is the bearer token callers of the relay send; make one: ${make}`);
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    return fail('relay_token_too_short', `${TOKEN_VARIABLE} is shorter than ${MIN_TOKEN_LENGTH} characters: make a longer one: ${make}`);
  }
  return token;
}

function secretFrom(value: string | undefined): string {
  const secret = value?.trim() ?? '';
  const make = `export ${SECRET_VARIABLE}="whsec_$(openssl rand -base64 32)"`;
  if (secret === '') {
    return fail(
      'missing_webhook_secret',
      `${SECRET_VARIABLE} is not set: it is the secret events are signed with, which your receivers verify with; make one: ${make}`,
    );
  }
  // The delivery processor's own rule, so that it is refused here, with the other problems, before anything starts.
  const problem = secretProblem(secret);
  if (problem !== undefined) return fail('webhook_secret_format', `${SECRET_VARIABLE}: ${problem}; make one: ${make}`);
  return secret;
}

/**
 * `--redis`: a `redis://` or `rediss://` URL (user, password and database number in it, as ioredis reads them), or
 * the absolute path of a Unix socket.
 */
export function redisTarget(value: string): RedisTarget {
  const text = value.trim();
  if (text.startsWith('/')) return { url: text, shown: text };
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url?.protocol !== 'redis:' && url?.protocol !== 'rediss:') {
    return fail(
      'redis_url',
      '--redis must be a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379, redis://:password@host:6379/0) or the absolute path of a Unix socket',
    );
  }
  return { url: text, shown: `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}` };
}

function queuePrefix(value: string): string {
  // BullMQ builds Redis keys from the names with ':' between parts.
  if (/^[A-Za-z0-9_-]{1,64}$/.test(value)) return value;
  return fail('queue_prefix', '--queue-prefix must be 1 to 64 letters, digits, _ or -');
}

function fail(code: string, message: string): never {
  throw new UsageError([{ code, message }]);
}

/** A warning for a `--host` other than this machine: the API is plain http, so the token crosses the network in clear. */
export function hostWarning(host: string): string | undefined {
  if (isLoopbackHost(host) || host === '::1') return undefined;
  return (
    `--host ${host}: the relay's API is plain http, so the bearer token and the notify URLs cross the network in clear; ` +
    'serve it behind TLS (a reverse proxy) or keep it on a network you trust'
  );
}
