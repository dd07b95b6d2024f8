/**
 * "Sign in again to do this": how long ago the console session's user actually authenticated, as opposed to
 * when its token was issued. A Supabase access token carries `amr` — each method the user authenticated
 * with and its `timestamp` — and a refreshed token keeps it while its `iat` moves on; the local console's
 * token (server/console/session.ts) carries the same claim, set when the one-time link is used. So a token
 * kept alive by refreshes, or lifted from a page an hour ago, is not fresh; a sign-in a few minutes ago is.
 */
import { AppError } from '../http/errors.ts';
import type { JwtClaims } from '../store/types.ts';

/** A sign-in counts as fresh this long. */
export const FRESH_SIGN_IN_SECONDS = 5 * 60;

/** The latest authentication in the token's `amr` (unix seconds), or null when it records none. */
export function signedInAt(claims: JwtClaims): number | null {
  const amr = claims.amr;
  if (!Array.isArray(amr)) return null;
  const times = amr
    .map((entry) => (entry as { timestamp?: unknown } | null)?.timestamp)
    .filter((t): t is number => typeof t === 'number' && Number.isFinite(t));
  return times.length ? Math.max(...times) : null;
}

/** Throws 403 unless the session's user signed in within FRESH_SIGN_IN_SECONDS. */
export function requireFreshSignIn(claims: JwtClaims, what: string, now = Math.floor(Date.now() / 1000)): void {
  const at = signedInAt(claims);
  if (at !== null && now - at <= FRESH_SIGN_IN_SECONDS && at <= now + 60) return;
  throw new AppError(
    403,
    'forbidden',
    `To ${what}, sign in again: it needs a sign-in from the last ${FRESH_SIGN_IN_SECONDS / 60} minutes, not a kept or refreshed session.`,
  );
}
