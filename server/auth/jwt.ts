/**
 * Bearer-token authentication with Supabase's claims (`sub` = the user id, `role: authenticated`,
 * `aud: authenticated`). Two ways to sign, as Supabase has them:
 * - HS256 with the project's JWT secret (KB_JWT_SECRET; Supabase's legacy secret, and our local tokens);
 * - asymmetric signing keys (RS256, ES256) published at a JWKS URL (KB_JWKS_URL; Supabase's current keys).
 * The algorithm in the token header only selects which of the two configured verifiers runs; each accepts
 * only its own algorithms, so `alg: none` and algorithm confusion (an HS256 token "signed" with a public key)
 * are rejected.
 */
import { decode, sign, verify, verifyWithJwks } from 'hono/jwt';
import type { MiddlewareHandler } from 'hono';
import { AppError } from '../http/errors.ts';
import { ACCESS_TOKEN, type JwtClaims } from '../store/types.ts';
import { jwksKeys } from './jwks.ts';

/**
 * Local anonymous tokens live an hour, as Supabase's do by default: a token lifted from a page is useful
 * for an hour, not a week. The widget renews it before it expires (POST /api/auth/refresh).
 */
export const TOKEN_TTL_SECONDS = 60 * 60;
/** A local refresh token must be used within a day (an idle tab past that starts a new session). */
export const REFRESH_TTL_SECONDS = 60 * 60 * 24;
/**
 * The absolute end of a local session: refreshes renew it for at most 7 days from the sign-in, then the
 * visitor starts a new one. The widget keeps its session per tab (sessionStorage), so this ends only tabs
 * open for over a week, and it bounds what a copied refresh token is worth when the visitor never comes
 * back to trip the reuse check (which ends the copy at once when they do).
 */
export const SESSION_LIFETIME_SECONDS = 60 * 60 * 24 * 7;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ASYMMETRIC = ['RS256', 'ES256'] as const;

export type AuthVariables = { claims: JwtClaims };

export interface TokenVerification {
  /** HS256 secret; tokens with `alg: HS256` are rejected without it. */
  secret?: string | null;
  /** JWKS URL; tokens with `alg: RS256/ES256` are rejected without it. */
  jwksUrl?: string | null;
  /** Expected `aud` (Supabase: `authenticated`). */
  audience?: string;
  /** Expected `iss` when set (Supabase: `https://<project>.supabase.co/auth/v1`). */
  issuer?: string | null;
}

/** Rejects requests without a valid `Authorization: Bearer <jwt>` with 401; sets `c.var.claims`. */
export function requireAuth(options: TokenVerification): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async function requireAuthMiddleware(c, next) {
    const header = c.req.header('Authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new AppError(401, 'unauthorized', 'Sign in first: this endpoint needs a bearer token.');
    c.set('claims', await verifyAccessToken(match[1]!, options));
    await next();
  };
}

const invalid = () =>
  new AppError(401, 'unauthorized', 'Your session is invalid or has expired. Please sign in again.');

export async function verifyAccessToken(token: string, options: TokenVerification | string): Promise<JwtClaims> {
  const {
    secret,
    jwksUrl,
    audience = 'authenticated',
    issuer,
  } = typeof options === 'string' ? { secret: options } : options;
  const checks = { aud: audience, ...(issuer ? { iss: issuer } : {}) };
  let payload: Record<string, unknown>;
  try {
    const { alg, kid } = decode(token).header as { alg: string; kid?: string };
    if (alg === 'HS256' && secret) {
      payload = await verify(token, await hmacKey(secret), { alg: 'HS256', ...checks });
    } else if ((ASYMMETRIC as readonly string[]).includes(alg) && jwksUrl) {
      payload = await verifyWithJwks(token, {
        keys: await jwksKeys(jwksUrl, kid),
        allowedAlgorithms: ASYMMETRIC,
        verification: checks,
      });
    } else {
      throw new Error(`algorithm ${alg} is not accepted`);
    }
  } catch {
    throw invalid();
  }
  // The verifiers check `exp` only when it is there: a token without one would be valid forever.
  if (typeof payload.exp !== 'number') throw invalid();
  if (typeof payload.sub !== 'string' || !UUID.test(payload.sub) || payload.role !== 'authenticated') {
    throw new AppError(401, 'unauthorized', 'This token is not a signed-in user token.');
  }
  // Kept beside the claims so that the Supabase store can forward the visitor's own token (RLS as them).
  return Object.assign(payload as JwtClaims, { [ACCESS_TOKEN]: token });
}

/** Issues a token shaped like Supabase Auth's for an (anonymous) user. */
export async function issueAccessToken(userId: string, secret: string, now = Math.floor(Date.now() / 1000)) {
  const claims: JwtClaims = {
    sub: userId,
    role: 'authenticated',
    aud: 'authenticated',
    is_anonymous: true,
    iat: now,
    exp: now + TOKEN_TTL_SECONDS,
  };
  return sign(claims, await hmacKey(secret), 'HS256');
}

/**
 * The HS256 secret as a WebCrypto key, imported once per secret: given the secret as a string, Hono's
 * `verify` and `sign` import it again for every token, which took about half of a verification's CPU time
 * (0.38 against 0.14 ms in a loop of 2,000). A process holds one secret, or a few in tests; the map is
 * bounded all the same.
 */
const hmacKeys = new Map<string, Promise<CryptoKey>>();
function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    if (hmacKeys.size >= 16) hmacKeys.clear();
    key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    // A failed import is not kept: the next token tries again.
    key.catch(() => hmacKeys.delete(secret));
    hmacKeys.set(secret, key);
  }
  return key;
}
