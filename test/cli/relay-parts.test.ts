/**
 * The relay's parts on their own: the token check, the watch request's shape, the settings from flags and the
 * environment, the peers' check, and a watch's state as read from its BullMQ jobs (fakes of the two queues).
 */
import { describe, expect, it } from 'vitest';
import { bearerMatches } from '../../src/cli/relay/auth.js';
import { parseWatchRequest } from '../../src/cli/relay/body.js';
import { missingPeers } from '../../src/cli/relay/peers.js';
import { hostWarning, type RelayFlags, redisTarget, relaySettings } from '../../src/cli/relay/settings.js';
import { watchStore } from '../../src/cli/relay/watches.js';
import { UsageError } from '../../src/cli/usage-error.js';

const TOKEN = 'a-relay-token-of-some-length';

describe('bearerMatches', () => {
  it('takes the token after Bearer (any case, spaces around), and nothing else', () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`bearer  ${TOKEN} `, TOKEN)).toBe(true);
    for (const header of [
      undefined,
      '',
      TOKEN,
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(1)}`,
      `Bearer ${TOKEN} extra`,
    ]) {
      expect(bearerMatches(header, TOKEN)).toBe(false);
    }
  });
});

describe('parseWatchRequest', () => {
  it('takes {video_id, notify_url} as strings, leaving their rules to watchJob', () => {
    expect(parseWatchRequest('{"video_id": "vid_1", "notify_url": "https://a.example/h"}')).toEqual({
      video_id: 'vid_1',
      notify_url: 'https://a.example/h',
    });
  });

  it.each([
    ['nope', undefined, 'not JSON'],
    ['[]', undefined, 'JSON object'],
    ['null', undefined, 'JSON object'],
    ['{"video_id": "vid_1"}', 'notify_url', 'required'],
    ['{"video_id": 7, "notify_url": "https://a.example/h"}', 'video_id', 'required'],
    ['{"video_id": " ", "notify_url": "https://a.example/h"}', 'video_id', 'required'],
    ['{"video_id": "vid_1", "notifyUrl": "https://a.example/h"}', 'notifyUrl', 'unknown field'],
  ])('refuses %s, naming the field and why', (body, field, why) => {
    const refused = parseWatchRequest(body) as { field?: string; message: string };
    expect(refused.field).toBe(field);
    expect(refused.message).toContain(why);
  });
});

const FLAGS: RelayFlags = { redis: 'redis://127.0.0.1:6379', host: '127.0.0.1', port: 0, queuePrefix: 'avatar-video' };
const ENV = {
  AVATAR_VIDEO_RELAY_TOKEN: TOKEN,
  AVATAR_VIDEO_WEBHOOK_SECRET: `whsec_${Buffer.from('secret-secret-secret-secret').toString('base64')}`,
};

/** The problems `relaySettings` reports for these flags and variables. */
function problemsOf(flags: Partial<RelayFlags>, env: Record<string, string | undefined>) {
  try {
    relaySettings({ ...FLAGS, ...flags }, { ...ENV, ...env });
  } catch (error) {
    if (error instanceof UsageError) return error.problems;
    throw error;
  }
  return [];
}

describe('relaySettings', () => {
  it('names the queues from the prefix and keeps the secrets as given', () => {
    const settings = relaySettings({ ...FLAGS, queuePrefix: 'team-a' }, ENV);
    expect(settings.queues).toEqual({ watch: 'team-a-watches', delivery: 'team-a-deliveries' });
    expect(settings).toMatchObject({ token: TOKEN, secret: ENV.AVATAR_VIDEO_WEBHOOK_SECRET, allowPrivateNotifyUrls: false });
  });

  it('reports every problem at once, each naming its variable or flag and never a value given', () => {
    const problems = problemsOf(
      { redis: 'http://127.0.0.1:6379', queuePrefix: 'a:b' },
      { AVATAR_VIDEO_RELAY_TOKEN: 'short-secret', AVATAR_VIDEO_WEBHOOK_SECRET: 'not-a-whsec-value' },
    );
    expect(problems.map((problem) => problem.code)).toEqual([
      'relay_token_too_short',
      'webhook_secret_format',
      'redis_url',
      'queue_prefix',
    ]);
    const text = problems.map((problem) => problem.message).join('\n');
    expect(text).not.toContain('short-secret');
    expect(text).not.toContain('not-a-whsec-value');
    expect(problemsOf({}, { AVATAR_VIDEO_RELAY_TOKEN: ' ', AVATAR_VIDEO_WEBHOOK_SECRET: undefined }).map((p) => p.code)).toEqual([
      'missing_relay_token',
      'missing_webhook_secret',
    ]);
  });

  it('shows a Redis URL without its user and password; takes a Unix socket path as it is', () => {
    expect(redisTarget('redis://user:hunter2@redis.internal:6380/2')).toEqual({
      url: 'redis://user:hunter2@redis.internal:6380/2',
      shown: 'redis://redis.internal:6380/2',
    });
    expect(redisTarget('rediss://:pw@r.example').shown).toBe('rediss://r.example');
    expect(redisTarget('/run/redis.sock')).toEqual({ url: '/run/redis.sock', shown: '/run/redis.sock' });
    expect(() => redisTarget('127.0.0.1:6379')).toThrow(UsageError);
  });

  it('warns of a --host off this machine: the API is plain http', () => {
    expect(hostWarning('127.0.0.1')).toBeUndefined();
    expect(hostWarning('::1')).toBeUndefined();
    expect(hostWarning('localhost')).toBeUndefined();
    expect(hostWarning('0.0.0.0')).toContain('in clear');
  });
});

describe('missingPeers', () => {
  const resolver = (missing: string[]) => (name: string) => {
    if (missing.includes(name)) throw Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' });
    return `file:///app/node_modules/${name}/index.js`;
  };

  it('is nothing when both are there', () => {
    expect(missingPeers(resolver([]))).toBeUndefined();
  });

  it.each([[['bullmq']], [['ioredis']], [['bullmq', 'ioredis']]])('names what to install when %s is missing', (missing) => {
    const problem = missingPeers(resolver(missing));
    expect(problem?.problems[0]?.code).toBe('missing_peer');
    expect(problem?.message).toContain(`npm install ${missing.join(' ')}`);
  });
});

/** A fake BullMQ job: what the store reads of one. */
function job(fields: { id: string; state: string; data?: object; returnvalue?: object; failedReason?: string; attemptsMade?: number }) {
  let state = fields.state;
  return {
    attemptsMade: 0,
    finishedOn: Date.UTC(2026, 0, 2),
    ...fields,
    getState: async () => state,
    retry: async () => {
      state = 'waiting';
    },
  };
}

describe('watchStore: a watch as its jobs say', () => {
  const notifyUrl = 'https://a.example/h?token=abc';
  const delivery = (state: string, extra = {}) => job({ id: 'delivery-1', state, attemptsMade: 2, ...extra });
  // biome-ignore lint/suspicious/noExplicitAny: fakes of the two queues, holding the fake jobs above.
  const store = (watch: any, deliveryJob?: any) =>
    watchStore(
      {
        watchQueue: {
          getJob: async (id: string) => (id === 'other' ? undefined : watch),
          getJobState: async (id: string) => (id === 'other' ? 'unknown' : watch.getState()),
          // biome-ignore lint/suspicious/noExplicitAny: the fake's jobs.
          add: async () => ({}) as any,
        },
        deliveryQueue: { getJob: async () => deliveryJob, getJobState: async () => deliveryJob?.getState() ?? 'unknown' },
      },
      (text) => text.replaceAll('abc', '[redacted]'),
    );
  const data = { videoId: 'vid_1', notifyUrl };

  it('waiting before its first poll, then polling with the polls and the status last read', async () => {
    expect(await store(job({ id: 'w', state: 'delayed', data })).describe('w')).toEqual({
      id: 'w',
      video_id: 'vid_1',
      state: 'waiting',
      polls: 0,
    });
    const polled = job({
      id: 'w',
      state: 'delayed',
      data: { ...data, startedAt: 1, state: { polls: 3 }, video: { status: 'PROCESSING' } },
    });
    expect(await store(polled).describe('w')).toMatchObject({ state: 'polling', polls: 3, video_status: 'PROCESSING' });
    // Its first poll failed (the service unreachable): polling all the same, saying so.
    const failing = job({ id: 'w', state: 'delayed', data: { ...data, startedAt: 1, failures: 2 } });
    expect(await store(failing).describe('w')).toMatchObject({ state: 'polling', polls: 0, failed_polls: 2 });
    expect(await store(polled).describe('other')).toBeUndefined();
  });

  it('failed, with the reason scrubbed; a POST of it again starts it again', async () => {
    const failed = job({ id: 'w', state: 'failed', data, failedReason: '401 for key abc' });
    const view = await store(failed).describe('w');
    expect(view).toMatchObject({ state: 'failed', error: '401 for key [redacted]' });
    expect(view).not.toHaveProperty('notify_url');
    expect(await store(failed).register('vid_1', notifyUrl)).toMatchObject({ created: true, watch: { state: 'waiting' } });
    // Found as it was: not created, not started again.
    const polling = job({ id: 'w', state: 'delayed', data: { ...data, startedAt: 1, state: { polls: 1 } } });
    expect(await store(polling).register('vid_1', notifyUrl)).toMatchObject({ created: false, watch: { state: 'polling' } });
  });

  it('settled: delivering (with the last try’s reason), delivered, or failed after every try', async () => {
    const settled = { id: 'w', state: 'completed', data, returnvalue: { status: 'COMPLETE', type: 'video.completed', eventId: 'evt_1' } };
    expect(await store(job(settled), delivery('delayed', { failedReason: '500 from a.example' })).describe('w')).toMatchObject({
      state: 'delivering',
      event_id: 'evt_1',
      delivery_attempts: 2,
      error: '500 from a.example',
    });
    expect(await store(job(settled), delivery('completed')).describe('w')).toMatchObject({
      state: 'delivered',
      delivered_at: '2026-01-02T00:00:00.000Z',
    });
    expect(await store(job(settled), delivery('failed')).describe('w')).toMatchObject({ state: 'failed' });
  });
});
