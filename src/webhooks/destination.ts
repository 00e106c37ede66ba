// Destination safety (spec, Destination rules): the one place that decides whether
// Signet may send a request to a URL. Used when an endpoint is registered or changed,
// and again by the delivery engine for the address it is about to connect to, so a name
// that later resolves somewhere private (DNS rebinding) is refused at send time too.
//
// A URL is refused unless: it is https on port 443, carries no credentials, its host is
// not a local or metadata name, and every address the host resolves to is public
// unicast. Odd spellings of addresses (2130706433, 0177.0.0.1, 127.1, 0x7f.1, [::ffff:…],
// trailing dots, IDN) are judged by the address they mean: the WHATWG URL parser
// normalises them and ipaddr.js classifies the result.
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export interface Resolver {
  /** Every address `hostname` resolves to; empty or a rejection when it does not resolve. */
  resolve(hostname: string): Promise<string[]>;
}

export const systemResolver: Resolver = {
  async resolve(hostname) {
    const records = await lookup(hostname, { all: true, verbatim: true });
    return records.map((r) => r.address);
  },
};

export interface DestinationPolicy {
  /** SIGNET_WEBHOOK_ALLOW_UNSAFE: http, any port, private and loopback addresses (development). */
  allowUnsafe: boolean;
}

export type DestinationRefusal = 'invalid-url' | 'unsafe-url';

export type DestinationVerdict =
  | { ok: true; url: URL; addresses: string[] }
  | { ok: false; code: DestinationRefusal; reason: string };

const maxUrlLength = 2048;

/** Names that are local or cloud metadata services whatever they resolve to. */
const blockedNames = new Set([
  'localhost',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.com',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);
const blockedSuffixes = [
  '.localhost',
  '.local',
  '.internal',
  '.localdomain',
  '.home.arpa',
  '.intranet',
  '.lan',
];

const refuse = (code: DestinationRefusal, reason: string): DestinationVerdict => ({
  ok: false,
  code,
  reason,
});

/** Whether an address (either family, any textual form ipaddr.js accepts) is public unicast. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(canonicalIPv6(address));
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  // Judged by its 16-bit groups, not by how it was written: ipaddr.js reads "::8.8.8.8"
  // (IPv4-compatible) as if it were "::ffff:8.8.8.8" (IPv4-mapped).
  const parts = v6.parts;
  const zeroPrefix = parts.slice(0, 5).every((p) => p === 0);
  if (zeroPrefix && parts[5] === 0xffff) {
    // IPv4-mapped: as public as the IPv4 address it carries.
    return (
      ipaddr.IPv4.parse(
        `${(parts[6] ?? 0) >> 8}.${(parts[6] ?? 0) & 255}.${(parts[7] ?? 0) >> 8}.${(parts[7] ?? 0) & 255}`,
      ).range() === 'unicast'
    );
  }
  // IPv4-compatible (::a.b.c.d, deprecated) and everything else in ::/96: never public.
  if (zeroPrefix && parts[5] === 0) return false;
  // Only global unicast (2000::/3) is public; ipaddr's ranges then exclude
  // documentation, Teredo, 6to4, ORCHID, …; NAT64 (64:ff9b::/96) lies outside 2000::/3.
  if (((parts[0] ?? 0) & 0xe000) !== 0x2000) return false;
  return v6.range() === 'unicast';
}

/**
 * IPv6 text with an embedded dotted quad, rewritten in hex groups by the WHATWG URL parser
 * ("::8.8.8.8" -> "::808:808"): ipaddr.js reads that notation as IPv4-mapped whatever the
 * groups before it say.
 */
function canonicalIPv6(address: string): string {
  if (!address.includes(':') || !address.includes('.') || !URL.canParse(`http://[${address}]/`))
    return address;
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

/** The hostname without brackets (IPv6) and without trailing dots ("internal.." is "internal"). */
export function bareHost(url: URL): string {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return host.replace(/\.+$/, '');
}

/** The checks that need no network: syntax, scheme, port, credentials, names. */
export function checkUrlShape(raw: string, policy: DestinationPolicy): DestinationVerdict {
  // The URL parser silently drops tabs/newlines and trims spaces; a URL that needed that is not one.
  if (
    raw.length === 0 ||
    raw.length > maxUrlLength ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
    /[\u0000-\u0020\u007f]/.test(raw) ||
    !URL.canParse(raw)
  ) {
    return refuse('invalid-url', 'not a valid URL');
  }
  const url = new URL(raw);
  if (url.protocol !== 'https:' && !(policy.allowUnsafe && url.protocol === 'http:')) {
    return refuse('unsafe-url', 'only https URLs are allowed');
  }
  if (url.port !== '' && !policy.allowUnsafe) return refuse('unsafe-url', 'only port 443 is allowed');
  if (url.username !== '' || url.password !== '')
    return refuse('unsafe-url', 'credentials in the URL are not allowed');
  const host = bareHost(url).toLowerCase();
  if (host === '') return refuse('invalid-url', 'the URL has no host');
  if (
    !policy.allowUnsafe &&
    (blockedNames.has(host) || blockedSuffixes.some((suffix) => host.endsWith(suffix)))
  ) {
    return refuse('unsafe-url', 'local and metadata host names are not allowed');
  }
  return { ok: true, url, addresses: [] };
}

/** Judges addresses a host resolved to: every one must be public (unless unsafe is allowed). */
export function checkAddresses(addresses: string[], policy: DestinationPolicy): DestinationVerdict | null {
  if (addresses.length === 0) return refuse('unsafe-url', 'the host does not resolve');
  if (policy.allowUnsafe) return null;
  const blocked = addresses.find((address) => !isPublicAddress(address));
  return blocked ? refuse('unsafe-url', `the host resolves to a non-public address (${blocked})`) : null;
}

/** The full check: shape, then every address the host resolves to (or is). */
export async function checkDestination(
  raw: string,
  policy: DestinationPolicy,
  resolver: Resolver,
): Promise<DestinationVerdict> {
  const shape = checkUrlShape(raw, policy);
  if (!shape.ok) return shape;
  const host = bareHost(shape.url);
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolver.resolve(host);
    } catch {
      addresses = [];
    }
  }
  const refusal = checkAddresses(addresses, policy);
  return refusal ?? { ok: true, url: shape.url, addresses };
}
