import { describe, expect, it } from 'vitest';
import { runtimeName } from '../../src/internal/runtime.js';
import { useCleanup } from '../helpers/fixture.js';

describe('runtimeName: the runtime the user-agent names', () => {
  useCleanup();
  const node = { process: { versions: { node: '20.20.2' } } };

  it('names Node with its version, here and from its globals', () => {
    expect(runtimeName()).toBe(`node/${process.versions.node}`);
    expect(runtimeName(node)).toBe('node/20.20.2');
  });

  it('names Bun and Deno before the Node version they also define', () => {
    expect(runtimeName({ ...node, Bun: { version: '1.4.4' } })).toBe('bun/1.4.4');
    expect(runtimeName({ ...node, Deno: { version: { deno: '2.9.6' } } })).toBe('deno/2.9.6');
  });

  it('names the web runtimes without a version they do not give', () => {
    expect(runtimeName({ navigator: { userAgent: 'Cloudflare-Workers' } })).toBe('workerd');
    expect(runtimeName({ EdgeRuntime: 'edge-runtime', navigator: { userAgent: 'x' } })).toBe('edge-runtime');
    expect(runtimeName({ document: {}, navigator: { userAgent: 'Mozilla/5.0' } })).toBe('browser');
    expect(runtimeName({})).toBe('unknown');
  });
});
