/**
 * Public signing keys from a JWKS URL, cached per URL for ten minutes so that verifying a token costs no
 * request. A failed fetch is not cached: the next token tries again.
 */
import type { HonoJsonWebKey } from 'hono/utils/jwt/jws';

const TTL_MS = 10 * 60 * 1000;
const cache = new Map<string, { keys: HonoJsonWebKey[]; fetchedAt: number }>();

export async function jwksKeys(url: string, now = Date.now()): Promise<HonoJsonWebKey[]> {
  const hit = cache.get(url);
  if (hit && now - hit.fetchedAt < TTL_MS) return hit.keys;
  const response = await fetch(url, { headers: { Accept: 'application/json' } });
  if (!response.ok) throw new Error(`JWKS ${url} answered ${response.status}`);
  const body = (await response.json()) as { keys?: HonoJsonWebKey[] };
  if (!Array.isArray(body.keys)) throw new Error(`JWKS ${url} has no keys`);
  cache.set(url, { keys: body.keys, fetchedAt: now });
  return body.keys;
}
