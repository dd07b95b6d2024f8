/**
 * Bearer-token authentication with Supabase's claims: HS256 signed with the project's JWT secret
 * (KB_JWT_SECRET), `role: authenticated`, `sub` = the user id. In local mode the server also issues such
 * tokens itself (POST /api/auth/anonymous), standing in for Supabase's anonymous sign-in.
 */
import { sign, verify } from 'hono/jwt';
import type { MiddlewareHandler } from 'hono';
import { AppError } from '../http/errors.ts';
import { ACCESS_TOKEN, type JwtClaims } from '../store/types.ts';

export const TOKEN_TTL_SECONDS = 60 * 60 * 24 * 7;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type AuthVariables = { claims: JwtClaims };

/** Rejects requests without a valid `Authorization: Bearer <jwt>` with 401; sets `c.var.claims`. */
export function requireAuth({ secret }: { secret: string }): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async function requireAuthMiddleware(c, next) {
    const header = c.req.header('Authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw new AppError(401, 'unauthorized', 'Sign in first: this endpoint needs a bearer token.');
    c.set('claims', await verifyAccessToken(match[1]!, secret));
    await next();
  };
}

export async function verifyAccessToken(token: string, secret: string): Promise<JwtClaims> {
  let payload: Record<string, unknown>;
  try {
    // HS256 only (so `alg: none` and algorithm confusion fail), plus exp/nbf/iat and Supabase's audience.
    payload = (await verify(token, secret, { alg: 'HS256', aud: 'authenticated' })) as Record<string, unknown>;
  } catch {
    throw new AppError(401, 'unauthorized', 'Your session is invalid or has expired. Please sign in again.');
  }
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
  return sign(claims, secret, 'HS256');
}
