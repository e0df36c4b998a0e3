/**
 * The addresses a webhook delivery refuses (src/internal/private-address.ts): every range, in IPv4 and IPv6, the
 * IPv4 ones also as IPv4-mapped and NAT64 IPv6, the edges of each range, and public addresses on either side.
 */
import { describe, expect, it } from 'vitest';
import { parseIPv4, parseIPv6, privateAddressKind } from '../../src/internal/private-address.js';

const REFUSED_V4: Array<[string, RegExp]> = [
  ['0.0.0.0', /unspecified/],
  ['0.255.255.255', /unspecified/],
  ['10.0.0.0', /private.*10\.0\.0\.0\/8/],
  ['10.255.255.255', /private/],
  ['100.64.0.0', /shared.*carrier-grade/],
  ['100.127.255.255', /shared/],
  ['127.0.0.1', /loopback/],
  ['127.255.255.254', /loopback/],
  ['169.254.169.254', /link-local.*metadata/],
  ['169.254.0.0', /link-local/],
  ['172.16.0.0', /private.*172\.16\.0\.0\/12/],
  ['172.31.255.255', /private/],
  ['192.168.0.1', /private.*192\.168/],
  ['192.168.255.255', /private/],
  ['224.0.0.1', /multicast/],
  ['239.255.255.255', /multicast/],
  ['240.0.0.1', /reserved/],
  ['255.255.255.255', /reserved.*broadcast/],
];

const PUBLIC_V4 = [
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.167.255.255',
  '192.169.0.0',
  '223.255.255.255',
  '93.184.216.34',
];

const REFUSED_V6: Array<[string, RegExp]> = [
  ['::', /unspecified/],
  ['::1', /loopback/],
  ['0:0:0:0:0:0:0:1', /loopback/],
  ['[::1]', /loopback/],
  ['::7f00:1', /IPv4-compatible/],
  ['fc00::1', /unique local/],
  ['fd12:3456:789a::1', /unique local/],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', /unique local/],
  ['fd00:ec2::254', /unique local/],
  ['fe80::1', /link-local/],
  ['fe80::1%eth0', /link-local/],
  ['febf:ffff::1', /link-local/],
  ['fec0::1', /site-local/],
  ['feff::1', /site-local/],
  ['ff02::1', /multicast/],
  ['ff0e::1', /multicast/],
  // IPv4-mapped: judged as the IPv4 address they carry, in either notation.
  ['::ffff:127.0.0.1', /loopback.*IPv4-mapped/],
  ['::ffff:7f00:1', /loopback.*IPv4-mapped/],
  ['::ffff:10.1.2.3', /private.*IPv4-mapped/],
  ['::ffff:169.254.169.254', /link-local.*IPv4-mapped/],
  ['::ffff:a9fe:a9fe', /link-local.*IPv4-mapped/],
  ['::ffff:0.0.0.0', /unspecified.*IPv4-mapped/],
  ['::ffff:100.64.0.1', /shared.*IPv4-mapped/],
  ['::ffff:224.0.0.1', /multicast.*IPv4-mapped/],
  // NAT64's well-known prefix, likewise.
  ['64:ff9b::127.0.0.1', /loopback.*NAT64/],
  ['64:ff9b::c0a8:1', /private.*NAT64/],
];

const PUBLIC_V6 = [
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::808:808',
  'fbff:ffff::1',
  'fe00::1',
  'fe7f::1',
  '2a00:1450:4001:82b::200e',
];

describe('privateAddressKind', () => {
  it.each(REFUSED_V4)('refuses IPv4 %s', (address, what) => {
    expect(privateAddressKind(address)).toMatch(what);
  });

  it.each(PUBLIC_V4)('lets the public IPv4 %s through', (address) => {
    expect(privateAddressKind(address)).toBeUndefined();
  });

  it.each(REFUSED_V6)('refuses IPv6 %s', (address, what) => {
    expect(privateAddressKind(address)).toMatch(what);
  });

  it.each(PUBLIC_V6)('lets the public IPv6 %s through', (address) => {
    expect(privateAddressKind(address)).toBeUndefined();
  });

  it('refuses what is not an address at all', () => {
    for (const text of [
      '',
      'localhost',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '1.2.3.04x',
      ':::',
      '1::2::3',
      'g::1',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
    ]) {
      expect(privateAddressKind(text)).toBe('not an IP address');
    }
  });
});

describe('the parsers', () => {
  it('read dotted IPv4 only in its four-part form', () => {
    expect(parseIPv4('192.168.1.2')).toBe(0xc0a80102);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffff);
    expect(parseIPv4('0x7f.1')).toBeUndefined();
    expect(parseIPv4('127.1')).toBeUndefined();
  });

  it('read IPv6 with ::, a dotted tail and a zone', () => {
    expect(parseIPv6('::1')).toBe(1n);
    expect(parseIPv6('1::')).toBe(1n << 112n);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toBe(0x0001_0002_0003_0004_0005_0006_0007_0008n);
    expect(parseIPv6('::ffff:1.2.3.4')).toBe(0xffff_0102_0304n);
    expect(parseIPv6('fe80::1%en0')).toBe((0xfe80n << 112n) | 1n);
    expect(parseIPv6('1:2:3:4:5:6:7::')).toBe(0x0001_0002_0003_0004_0005_0006_0007_0000n);
    expect(parseIPv6('1.2.3.4')).toBeUndefined();
  });
});
