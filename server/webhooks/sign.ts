/**
 * The webhook signature (the scheme of Stripe's and Standard Webhooks' signatures): the header
 * `KB-Signature: t=<unix seconds>,v1=<hex>` where `<hex>` is HMAC-SHA256, keyed with the webhook secret, of
 * `<t>.<the raw request body>`. Signing the timestamp with the body lets a receiver refuse a delivery
 * replayed later (it checks `t` is recent) without trusting anything unsigned. WebCrypto only, so the same
 * code signs on Node and on Workers.
 *
 * @example
 * const header = await signatureHeader(secret, body);          // "t=1764130000,v1=5f0c…"
 * await verifySignature(secret, header, body);                  // true
 */

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** `t=<unix>,v1=<hex>` for this body, signed now (or at `timestamp`, in seconds). */
export async function signatureHeader(
  secret: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): Promise<string> {
  return `t=${timestamp},v1=${await hmacHex(secret, `${timestamp}.${body}`)}`;
}

/**
 * What a receiver does: true when `header` signs `body` with `secret` and its timestamp is within
 * `toleranceSeconds` of now (default five minutes). Compares in constant time.
 */
export async function verifySignature(
  secret: string,
  header: string | null,
  body: string,
  toleranceSeconds = 300,
  now = Date.now(),
): Promise<boolean> {
  const parts = new Map((header ?? '').split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const given = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = await hmacHex(secret, `${t}.${body}`);
  if (given.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ given.charCodeAt(i);
  return diff === 0;
}
