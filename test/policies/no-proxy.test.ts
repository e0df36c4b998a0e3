import { afterEach, describe, expect, it, vi } from 'vitest';
import { exemptFromProxy, proxyFetch } from '../../src/cli/session.js';
import { useCleanup } from '../helpers/fixture.js';

useCleanup();
const exempt = (address: string, noProxy: string) => exemptFromProxy(new URL(address), noProxy);

describe('exemptFromProxy: the NO_PROXY rule of undici (EnvHttpProxyAgent), for runtimes whose undici has none', () => {
  it('exempts nothing when NO_PROXY is empty, and every host for `*`', () => {
    expect(exempt('https://api.example.com', '')).toBe(false);
    expect(exempt('https://api.example.com', '*')).toBe(true);
  });

  it('exempts a host and its subdomains, whatever the leading `.` or `*.`, in any case', () => {
    for (const entry of ['example.com', '.example.com', '*.example.com', 'EXAMPLE.com']) {
      expect(exempt('https://api.example.com', entry)).toBe(true);
      expect(exempt('https://example.com', entry)).toBe(true);
    }
    expect(exempt('https://notexample.com', 'example.com')).toBe(false);
  });

  it('reads entries split on commas and spaces, a port only when the entry names one', () => {
    expect(exempt('http://127.0.0.1:8080', 'other.host, 127.0.0.1')).toBe(true);
    expect(exempt('http://127.0.0.1:8080', 'other.host 127.0.0.1:8080')).toBe(true);
    expect(exempt('http://127.0.0.1:8080', '127.0.0.1:9090')).toBe(false);
    expect(exempt('https://api.example.com', 'api.example.com:443')).toBe(true);
    expect(exempt('http://[::1]:8080', '[::1]')).toBe(true);
  });
});

describe('proxyFetch: the proxy given to the runtime’s fetch', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  function sentWith(flag: string | undefined, env: NodeJS.ProcessEnv, address: string): RequestInit | undefined {
    const seen: RequestInit[] = [];
    vi.stubGlobal('fetch', async (_input: string, init: RequestInit) => {
      seen.push(init);
      return new Response('{}');
    });
    const fetch = proxyFetch(flag, env);
    if (!fetch) return undefined;
    void fetch(address, { method: 'GET' });
    return seen[0];
  }

  it('is none without a proxy; `--proxy` or the variables choose one per scheme, as EnvHttpProxyAgent does', () => {
    expect(sentWith(undefined, {}, 'https://api.example.com')).toBeUndefined();
    expect(sentWith('http://flag:3128', {}, 'https://api.example.com')).toMatchObject({ proxy: 'http://flag:3128' });
    const env = { HTTPS_PROXY: 'http://secure:3128', HTTP_PROXY: 'http://plain:3128' };
    expect(sentWith(undefined, env, 'https://api.example.com')).toMatchObject({ proxy: 'http://secure:3128' });
    expect(sentWith(undefined, env, 'http://api.example.com')).toMatchObject({ proxy: 'http://plain:3128' });
    expect(sentWith(undefined, { HTTP_PROXY: 'http://plain:3128' }, 'https://api.example.com')).toMatchObject({
      proxy: 'http://plain:3128',
    });
  });

  it('sends a host NO_PROXY exempts without one', () => {
    const init = sentWith('http://flag:3128', { NO_PROXY: '.example.com' }, 'https://api.example.com');
    expect(init).toEqual({ method: 'GET' });
  });
});
