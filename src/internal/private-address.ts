/**
 * Which addresses a webhook must not be sent to: those of this machine, of a private network, link-local ones (the
 * cloud metadata service among them), multicast and the unroutable. Pure (no `node:net`, whose `BlockList` would do
 * but which only the mock may import), so that it is tested on its own: avatar-video/bullmq's delivery checks every
 * address a notify URL's host resolves to with it, as it connects.
 */

/** A range of addresses: its first address as a number (IPv4, 32 bits) or a bigint (IPv6, 128 bits), its prefix, what it is. */
interface Range<T> {
  base: T;
  prefix: number;
  what: string;
}

const v4 = (text: string, prefix: number, what: string): Range<number> => ({ base: parseIPv4(text) as number, prefix, what });
const v6 = (text: string, prefix: number, what: string): Range<bigint> => ({ base: parseIPv6(text) as bigint, prefix, what });

const IPV4_RANGES: readonly Range<number>[] = [
  v4('0.0.0.0', 8, 'an unspecified address (0.0.0.0/8)'),
  v4('10.0.0.0', 8, 'a private address (10.0.0.0/8)'),
  v4('100.64.0.0', 10, 'a shared address (100.64.0.0/10, carrier-grade NAT)'),
  v4('127.0.0.0', 8, 'a loopback address (127.0.0.0/8)'),
  v4('169.254.0.0', 16, 'a link-local address (169.254.0.0/16, cloud metadata services among them)'),
  v4('172.16.0.0', 12, 'a private address (172.16.0.0/12)'),
  v4('192.168.0.0', 16, 'a private address (192.168.0.0/16)'),
  v4('224.0.0.0', 4, 'a multicast address (224.0.0.0/4)'),
  v4('240.0.0.0', 4, 'a reserved address (240.0.0.0/4, broadcast among them)'),
];

const IPV6_RANGES: readonly Range<bigint>[] = [
  v6('::', 128, 'an unspecified address (::)'),
  v6('::1', 128, 'a loopback address (::1)'),
  // Both in ::/96: named before it so that they say what they are.
  v6('::', 96, 'an IPv4-compatible address (::/96, deprecated)'),
  v6('fc00::', 7, 'a unique local address (fc00::/7)'),
  v6('fe80::', 10, 'a link-local address (fe80::/10)'),
  v6('fec0::', 10, 'a site-local address (fec0::/10, deprecated)'),
  v6('ff00::', 8, 'a multicast address (ff00::/8)'),
];

/** Prefixes whose last 32 bits are an IPv4 address, judged as that address: IPv4-mapped, and NAT64's well-known prefix (DNS64 gives public hosts such addresses). */
const EMBEDDING_V4: readonly Range<bigint>[] = [v6('::ffff:0:0', 96, 'IPv4-mapped'), v6('64:ff9b::', 96, 'NAT64')];

/**
 * What `address` is, as a phrase ("a loopback address (127.0.0.0/8)"), when it is not a public address a webhook may
 * go to; undefined for a public one. `address` is an IPv4 address in dotted decimal or an IPv6 one (a zone, `%eth0`,
 * and brackets are allowed); anything else is not an address and is refused too ("not an IP address").
 */
export function privateAddressKind(address: string): string | undefined {
  const text = address.replace(/^\[(.*)\]$/, '$1');
  const four = parseIPv4(text);
  if (four !== undefined) return IPV4_RANGES.find((range) => inRange(four, range, 32))?.what;
  const six = parseIPv6(text);
  if (six === undefined) return 'not an IP address';
  const embedding = EMBEDDING_V4.find((range) => inRange(six, range, 128));
  if (embedding !== undefined) {
    const inner = Number(six & 0xffff_ffffn);
    const what = IPV4_RANGES.find((range) => inRange(inner, range, 32))?.what;
    return what === undefined ? undefined : `${what}, ${embedding.what}`;
  }
  return IPV6_RANGES.find((range) => inRange(six, range, 128))?.what;
}

function inRange<T extends number | bigint>(value: T, range: Range<T>, bits: number): boolean {
  if (typeof value === 'number') {
    const shift = bits - range.prefix;
    // >>> 0 keeps the 32-bit values unsigned; a shift of 32 is a no-op in JavaScript, hence the prefix-0 case.
    return range.prefix === 0 || value >>> shift === (range.base as number) >>> shift;
  }
  const shift = BigInt(bits - range.prefix);
  return (value as bigint) >> shift === (range.base as bigint) >> shift;
}

/** A dotted-decimal IPv4 address as a number, or undefined. Only the four-part form: what DNS and URL parsing give. */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

/** An IPv6 address as a 128-bit bigint, or undefined: eight groups, one `::` at most, a dotted IPv4 tail, a zone dropped. */
export function parseIPv6(text: string): bigint | undefined {
  const [body = '', ...zone] = text.split('%');
  if (zone.length > 1 || !body.includes(':')) return undefined;
  const groups = groupsOf(body);
  if (groups === undefined) return undefined;
  let value = 0n;
  for (const group of groups) value = (value << 16n) | BigInt(group);
  return value;
}

/** The eight 16-bit groups of an IPv6 address without its zone, `::` expanded; undefined if it is not one. */
function groupsOf(body: string): number[] | undefined {
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const sides = halves.map((half) => (half === '' ? [] : half.split(':')));
  const last = sides.at(-1) as string[];
  // A dotted IPv4 tail (`::ffff:127.0.0.1`) stands for the last two groups.
  const tail = last.at(-1);
  if (tail?.includes('.')) {
    const four = parseIPv4(tail);
    if (four === undefined) return undefined;
    last.splice(-1, 1, (four >>> 16).toString(16), (four & 0xffff).toString(16));
  }
  const given = sides.flat();
  if (given.some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  if (halves.length === 1 ? given.length !== 8 : given.length > 7) return undefined;
  const zeros = Array.from({ length: 8 - given.length }, () => '0');
  const all = halves.length === 1 ? given : [...(sides[0] as string[]), ...zeros, ...(sides[1] as string[])];
  return all.map((group) => Number.parseInt(group, 16));
}
