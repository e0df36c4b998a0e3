import { describe, expect, it } from 'vitest';
import { checkLoopbackRequest } from '../../src/mcp/loopback-guard.js';

describe('checkLoopbackRequest: which requests `mcp --http` answers (DNS-rebinding protection)', () => {
  it('answers loopback Hosts on any port, with no Origin (a program) or a loopback Origin (a local page)', () => {
    for (const host of ['127.0.0.1:5123', 'localhost:80', 'LOCALHOST:9', '[::1]:4000', '127.0.0.1']) {
      expect(checkLoopbackRequest({ host })).toBeUndefined();
    }
    for (const origin of ['http://localhost:6274', 'http://127.0.0.1:3000', 'https://[::1]:8443']) {
      expect(checkLoopbackRequest({ host: '127.0.0.1:5123', origin })).toBeUndefined();
    }
  });

  it('refuses a missing Host and any Host that is not a loopback name, a rebound DNS name first of all', () => {
    expect(checkLoopbackRequest({})?.reason).toMatch(/no Host/);
    for (const host of ['evil.example:5123', 'evil.example', '127.0.0.2:5123', '0.0.0.0:5123', 'localhost.evil.example']) {
      expect(checkLoopbackRequest({ host })?.reason).toMatch(/not a loopback name/);
    }
    expect(checkLoopbackRequest({ host: 'localhost/evil' })).toBeDefined();
    expect(checkLoopbackRequest({ host: 'user@localhost' })).toBeDefined();
  });

  it('refuses a foreign Origin, an opaque `null` one and non-web schemes, even on a loopback Host', () => {
    const host = '127.0.0.1:5123';
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null', 'file://', 'chrome-extension://abc']) {
      expect(checkLoopbackRequest({ host, origin })?.reason).toMatch(/not a page on this machine/);
    }
  });
});
