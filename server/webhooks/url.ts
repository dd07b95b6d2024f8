/**
 * Which webhook URLs the server posts to: https, or plain http only to this machine's loopback and only when
 * the operator opted in (KB_WEBHOOK_ALLOW_LOOPBACK, for a receiver under development). Anything else —
 * http to another host, credentials in the URL, other schemes — is refused before a request is made. (The
 * Node server also refuses to connect to any non-public address: server/runtime/node/webhook-post.ts.)
 */
import ipaddr from 'ipaddr.js';

/** Why `url` is not a webhook URL this server uses, or null when it is. */
export function webhookUrlProblem(url: string, allowLoopback: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol !== 'http:') return 'must be an https URL';
  if (!isLoopbackHost(parsed.hostname))
    return 'must be https (plain http only to loopback, with KB_WEBHOOK_ALLOW_LOOPBACK)';
  return allowLoopback ? null : 'is http to loopback, which needs KB_WEBHOOK_ALLOW_LOOPBACK=1 (a development receiver)';
}

/** localhost, 127.0.0.0/8, ::1 (a URL's hostname, IPv6 in brackets). */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return false;
  return ipaddr.process(bare).range() === 'loopback';
}
