import { lookup as dnsLookup } from 'node:dns';
import { parseIPv4, parseIPv6, privateAddressKind } from '../internal/private-address.js';

/** One address of a name, as `dns.lookup` gives it with `all`. */
interface Resolved {
  address: string;
  family: number;
}

/** The lookup `net.connect` takes (node:net's `LookupFunction`, not imported: only the mock imports node:net). */
export type GuardedLookup = (
  hostname: string,
  options: { all?: boolean; family?: number | string | undefined; hints?: number },
  callback: (error: NodeJS.ErrnoException | null, address: string | Resolved[], family?: number) => void,
) => void;

/** Every address the host of a notify URL resolved to is one a delivery refuses. */
export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';

  constructor(
    readonly host: string,
    readonly address: string,
    readonly kind: string,
  ) {
    super(host.replace(/^\[(.*)\]$/, '$1') === address ? `${host} is ${kind}` : `${host} resolves to ${address}, ${kind}`);
  }
}

/** Why the host of `url` is refused when it is an IP address written out (such a host is connected to without a lookup). */
export function literalAddressProblem(url: URL): RefusedAddressError | undefined {
  const bare = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (parseIPv4(bare) === undefined && parseIPv6(bare) === undefined) return undefined;
  const kind = privateAddressKind(bare);
  return kind === undefined ? undefined : new RefusedAddressError(url.hostname, bare, kind);
}

/**
 * A lookup for the delivery's connections: the system's (`dns.lookup`), then only the public addresses among its
 * answers, so the address checked is the address connected to, and a name that resolves to a public address when
 * registered and to an internal one when delivered (DNS rebinding) reaches nothing. None left fails the connection
 * with a `RefusedAddressError`.
 */
export const guardedLookup: GuardedLookup = (hostname, options, callback) => {
  dnsLookup(hostname, { family: options.family as number | undefined, hints: options.hints, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const allowed = addresses.filter((resolved) => privateAddressKind(resolved.address) === undefined);
    const first = allowed[0];
    if (first === undefined) {
      const refused = addresses[0];
      const kind = refused === undefined ? 'no address' : (privateAddressKind(refused.address) as string);
      return callback(new RefusedAddressError(hostname, refused?.address ?? '(none)', kind), []);
    }
    if (options.all) callback(null, allowed);
    else callback(null, first.address, first.family);
  });
};
