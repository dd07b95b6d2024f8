/**
 * What a per-client limit counts: the client's network, not the exact address. An IPv4 address is one
 * client (or one NAT); an IPv6 client is its /64 — the prefix one home or one server is given, inside which
 * it can pick a fresh address for every request (2^64 of them), so counting exact IPv6 addresses would not
 * limit anyone. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket reports an IPv4
 * client) is that IPv4 address. Parsing and canonical spelling are ipaddr.js's, so `2001:DB8::1` and
 * `2001:db8:0:0::1` are one key.
 */
import ipaddr from 'ipaddr.js';

/** Requests whose address the runtime does not know share one key: unknown must not mean unlimited. */
export const UNKNOWN_CLIENT = 'unknown';

export function clientKey(address: string | null | undefined): string {
  const raw = address?.trim();
  if (!raw) return UNKNOWN_CLIENT;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process(): parse, and turn an IPv4-mapped IPv6 address into its IPv4 address.
    parsed = ipaddr.process(raw);
  } catch {
    // Not an address (a runtime that reports something else): still a key, bounded in size.
    return `other:${raw.slice(0, 64)}`;
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = new ipaddr.IPv6([...(parsed as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0]);
  return `${prefix.toString()}/64`;
}
