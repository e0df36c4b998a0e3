import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import AvatarVideoDefault, { AvatarVideo, AvatarVideoError, VERSION } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const closers = useCleanup();
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('construction', () => {
  it('is both the default and a named export', () => {
    expect(AvatarVideoDefault).toBe(AvatarVideo);
  });

  it('fails at construction without a key or a base URL', () => {
    vi.stubEnv('AVATAR_VIDEO_API_KEY', '');
    vi.stubEnv('AVATAR_VIDEO_BASE_URL', '');
    expect(() => new AvatarVideo({ baseURL: 'https://api.example.com' })).toThrow(/Missing API key/);
    expect(() => new AvatarVideo({ apiKey: 'k-123456' })).toThrow(/Missing base URL/);
  });

  it('without a key, says how to try without an account: the mock', () => {
    vi.stubEnv('AVATAR_VIDEO_API_KEY', '');
    expect(() => new AvatarVideo({ baseURL: 'https://api.example.com' })).toThrow(
      /set AVATAR_VIDEO_API_KEY\. To try without an account, run `npx avatar-video mock` and set the two variables it prints\./,
    );
  });

  it('falls back to the environment', () => {
    vi.stubEnv('AVATAR_VIDEO_API_KEY', 'env-key-123456');
    vi.stubEnv('AVATAR_VIDEO_BASE_URL', 'https://api.example.com/');
    const client = new AvatarVideo();
    expect(client.baseURL).toBe('https://api.example.com/');
  });

  it('sends the key from the environment on the wire', async () => {
    const api = await rawServer((_req, res) => json(res, 200, video('vid_1')));
    vi.stubEnv('AVATAR_VIDEO_API_KEY', 'env-key-123456');
    vi.stubEnv('AVATAR_VIDEO_BASE_URL', api.url);
    const client = new AvatarVideo({ logLevel: 'off' });
    closers.push(
      () => client.close(),
      () => api.close(),
    );
    await client.videos.retrieve('vid_1');
    expect(api.requests[0]?.headers['x-api-key']).toBe('env-key-123456');
  });

  it('publishes no member that returns the key or the transport', () => {
    const client = new AvatarVideo({ apiKey: 'super-secret-key-xyz', baseURL: 'https://x.example' });
    for (const name of ['secret', 'dispatcher', 'headers', 'url', 'request', 'withRetries']) expect(name in client).toBe(false);
    expect(Object.keys(client.videos)).toEqual([]);
  });

  it('refuses plain http off loopback unless allowed', () => {
    expect(() => new AvatarVideo({ apiKey: 'k-123456', baseURL: 'http://api.example.com' })).toThrow(/plain http/);
    expect(new AvatarVideo({ apiKey: 'k-123456', baseURL: 'http://api.example.com', allowInsecureHttp: true }).baseURL).toBe(
      'http://api.example.com/',
    );
    for (const host of ['localhost', '127.0.0.1', '[::1]', '127.1.2.3']) {
      expect(() => new AvatarVideo({ apiKey: 'k-123456', baseURL: `http://${host}:8080` })).not.toThrow();
    }
  });

  it('rejects malformed URLs, other schemes, URL credentials and keys with control characters', () => {
    expect(() => new AvatarVideo({ apiKey: 'k-123456', baseURL: 'not a url' })).toThrow(AvatarVideoError);
    expect(() => new AvatarVideo({ apiKey: 'k-123456', baseURL: 'ftp://x' })).toThrow(/http/);
    expect(() => new AvatarVideo({ apiKey: 'k-123456', baseURL: 'https://u:p@x.example' })).toThrow(/credentials/);
    const error = (() => {
      try {
        new AvatarVideo({ apiKey: 'k-1234\r\nx: y', baseURL: 'https://x.example' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toMatch(/control characters/);
    expect(error?.message).not.toContain('k-1234');
  });

  it('defaults timeout 60 s, 2 retries, 60 s max retry delay, 60 s audio', () => {
    const client = new AvatarVideo({ apiKey: 'k-123456', baseURL: 'https://x.example' });
    expect([client.timeout, client.maxRetries, client.maxRetryDelay, client.limits.maxAudioSeconds]).toEqual([60_000, 2, 60_000, 60]);
  });

  it('hides the key from inspect, JSON and enumeration', () => {
    const client = new AvatarVideo({ apiKey: 'super-secret-key-xyz', baseURL: 'https://x.example' });
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain('super-secret-key-xyz');
    expect(JSON.stringify(client)).not.toContain('super-secret-key-xyz');
    expect(JSON.stringify(Object.entries(client))).not.toContain('super-secret-key-xyz');
  });

  it('keeps VERSION equal to package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(VERSION).toBe(pkg.version);
  });
});
