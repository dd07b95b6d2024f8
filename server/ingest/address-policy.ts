/**
 * Which addresses the crawler may connect to. A crawl is started by whoever runs `npm run ingest` or by an
 * admin in the console, and what it fetches is then served to anonymous visitors as answers — so it must not
 * become a way to read the server's own network: loopback, private and link-local ranges (169.254.169.254 is
 * the cloud metadata service), carrier-grade NAT, unique-local, multicast, unspecified and reserved space,
 * in IPv4 and IPv6. ipaddr.js classifies the address; `process()` first unwraps an IPv4-mapped IPv6 address
 * (`::ffff:127.0.0.1` is 127.0.0.1 to the kernel), and the other IPv6 forms that carry an IPv4 address
 * (6to4, Teredo, NAT64) have ranges of their own, so anything but plain `unicast` is refused.
 */
import ipaddr from 'ipaddr.js';

/**
 * Why an address may not be fetched from (a phrase such as "a loopback address"), or null when it may.
 * The crawler takes another one only in tests, to stand in for a public host (no public host can be
 * reached from the test machine).
 */
export type AddressPolicy = (address: string) => string | null;

const PHRASES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local address',
  ipv4Mapped: 'an IPv4-mapped address',
  rfc6145: 'an IPv4-translated address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
};

// Every IPv6 address the Internet routes is in 2000::/3 (IANA's global unicast space); ipaddr.js calls
// some others `unicast` too, e.g. the deprecated IPv4-compatible `::7f00:1`.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** The default policy: only public unicast addresses. */
export const publicAddressesOnly: AddressPolicy = (address) => {
  const bare = address.replace(/^\[|\]$/g, '');
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(bare);
  } catch {
    return 'not an IP address';
  }
  const range = parsed.range();
  if (range !== 'unicast') {
    let phrase = PHRASES[range] ?? `in the special-purpose range "${range}"`;
    if (parsed.kind() === 'ipv4' && parsed.toString() === '169.254.169.254') phrase += ' (cloud metadata)';
    // An IPv4-mapped IPv6 address: say which IPv4 address it is.
    if (parsed.kind() === 'ipv4' && ipaddr.IPv6.isValid(bare)) phrase += ` (IPv4 ${parsed.toString()})`;
    return phrase;
  }
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'outside the global unicast range 2000::/3';
  return null;
};

// Never fetched, whatever the operator allowed: link-local (169.254/16 and fe80::/10, where the cloud metadata
// service answers) and the metadata services' other well-known addresses (AWS's IPv6 fd00:ec2::254, Alibaba's
// 100.100.100.200). A page read there would be served to anonymous visitors.
const METADATA = new Set(['fd00:ec2::254', '100.100.100.200']);
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

/**
 * `--allow-private` for a host the operator named: public unicast, loopback and private ranges; never
 * link-local, metadata, multicast, unspecified or reserved space.
 */
export const privateNetworkAddresses: AddressPolicy = (address) => {
  const bare = address.replace(/^\[|\]$/g, '');
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(bare);
  } catch {
    return 'not an IP address';
  }
  if (METADATA.has(parsed.toNormalizedString()) || METADATA.has(parsed.toString())) return 'a cloud metadata address';
  if (PRIVATE_RANGES.has(parsed.range())) return null;
  return publicAddressesOnly(address);
};

/** A host as the private-host list compares it: lower case, IPv6 without brackets, in its short form. */
export function hostKey(host: string): string {
  const bare = host.toLowerCase().replace(/^\[|\]$/g, '');
  return ipaddr.isValid(bare) ? ipaddr.parse(bare).toString() : bare;
}

/** True when `host` (a URL's hostname, IPv6 in brackets) is an IP address rather than a name. */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
}
