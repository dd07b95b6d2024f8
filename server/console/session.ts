/**
 * Signing in to the console.
 *
 * - **Local (Node, embedded database)**: `npm run console -- link` prints a one-time link. The link's token is
 *   signed with KB_JWT_SECRET (the CLI never opens the database the running server holds), lives 15
 *   minutes, and is for this purpose only (its audience is not `authenticated`, so it is never an access
 *   token). `POST /api/admin/session {link_token}` checks it and uses it up — the `jti` of its verified
 *   payload is stored, so a second use fails however the token is spelled — and answers an access token for
 *   the local admin user with `app_metadata.role = admin`.
 * - **Supabase (Workers)**: admins are Supabase Auth users whose `app_metadata.role` is `admin` (set with the
 *   service role; users cannot change app_metadata). `POST /api/admin/password {email, password}` relays
 *   Supabase Auth's password grant; a magic link works too (the console accepts `#access_token=` in its URL,
 *   as Supabase's redirect delivers it).
 *
 * Both routes are limited per client network (one budget for the two), before the body is read: a link
 * cannot be guessed, but each password attempt on Workers spends Supabase Auth's per-IP sign-in quota,
 * which every client of the Worker shares (they all reach Supabase from its addresses) — without a limit
 * here one client could use it up and lock the real admin out.
 */
import { Hono } from 'hono';
import { sign, verify } from 'hono/jwt';
import {
  ADMIN_BASE,
  ADMIN_PATHS,
  LinkSessionSchema,
  PasswordSessionSchema,
  pathUnder,
  type AdminSession,
} from '../../protocol/index.ts';
import { TOKEN_TTL_SECONDS } from '../auth/jwt.ts';
import { parseBody, readJson } from '../http/body.ts';
import { limitPerClient, type ClientAddress, type ClientLimiter } from '../http/client-limit.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import { StoreError } from '../store/types.ts';

/** A link is usable this long after it is printed. */
export const LINK_TTL_SECONDS = 15 * 60;
const LINK_AUDIENCE = 'kb-chat-admin-link';

export interface AdminSignIn {
  /** Local: the JWT secret and the store that uses links up. */
  link?: { secret: string; consume(jti: string): Promise<string | null> };
  /** Supabase: the password grant, relayed. */
  password?: (email: string, password: string) => Promise<AdminSession>;
  /** Sign-in attempts per client network, both routes together; none when unset. */
  limiter?: ClientLimiter;
  clientIp?: ClientAddress;
}

/** A one-time sign-in token for the local admin (what `npm run console -- link` puts in the link). */
export async function createLinkToken(secret: string, now = Math.floor(Date.now() / 1000)): Promise<string> {
  const nonce = crypto.randomUUID();
  return sign({ aud: LINK_AUDIENCE, jti: nonce, iat: now, exp: now + LINK_TTL_SECONDS }, secret, 'HS256');
}

/** An access token for the local admin: Supabase's claims, plus the admin role where Supabase keeps it. */
export async function issueAdminToken(
  userId: string,
  secret: string,
  now = Math.floor(Date.now() / 1000),
): Promise<string> {
  return sign(
    {
      sub: userId,
      role: 'authenticated',
      aud: 'authenticated',
      is_anonymous: false,
      app_metadata: { role: 'admin', provider: 'kb-chat-link' },
      // When the user signed in, as Supabase Auth records it (kept across refreshes): what a change that
      // asks for a fresh sign-in reads (./fresh-sign-in.ts).
      amr: [{ method: 'link', timestamp: now }],
      iat: now,
      exp: now + TOKEN_TTL_SECONDS,
    },
    secret,
    'HS256',
  );
}

const badLink = () =>
  new AppError(
    401,
    'unauthorized',
    'This sign-in link is invalid, expired or already used. Run `npm run console -- link` for a new one.',
  );

export function sessionRoute({ link, password, limiter, clientIp }: AdminSignIn) {
  const app = new Hono();
  if (limiter) {
    const limit = limitPerClient({
      limiter,
      clientIp,
      message: 'Too many sign-in attempts from your network. Please wait a minute and try again.',
    });
    app.use(pathUnder(ADMIN_BASE, ADMIN_PATHS.session), limit);
    app.use(pathUnder(ADMIN_BASE, ADMIN_PATHS.password), limit);
  }

  app.post(pathUnder(ADMIN_BASE, ADMIN_PATHS.session), async function linkSession(c) {
    if (!link)
      throw new AppError(404, 'not_found', 'Sign-in links are for the embedded server; sign in with Supabase Auth.');
    const { link_token } = parseBody(LinkSessionSchema, await readJson(c.req.raw));
    let jti: string;
    try {
      const payload = await verify(link_token, link.secret, { alg: 'HS256', aud: LINK_AUDIENCE });
      if (
        typeof payload.exp !== 'number' ||
        typeof payload.jti !== 'string' ||
        !payload.jti ||
        payload.jti.length > 100
      ) {
        throw new Error('no exp or jti');
      }
      jti = payload.jti;
    } catch {
      throw badLink();
    }
    // Used up by the signed payload's jti, never by the token's text: the verifier reads base64url leniently
    // (`=` padding, the spare low bits of the signature's last character), so one signature is spelled
    // several ways that all verify, and a key made from the text would let each spelling sign in once.
    const userId = await link.consume(jti).catch((error) => {
      throw fromStoreError(error);
    });
    if (!userId) throw badLink();
    return c.json<AdminSession>({
      access_token: await issueAdminToken(userId, link.secret),
      expires_in: TOKEN_TTL_SECONDS,
    });
  });

  app.post(pathUnder(ADMIN_BASE, ADMIN_PATHS.password), async function passwordSession(c) {
    if (!password)
      throw new AppError(404, 'not_found', 'Password sign-in is for Supabase; locally, run `npm run console -- link`.');
    const { email, password: secret } = parseBody(PasswordSessionSchema, await readJson(c.req.raw));
    return c.json<AdminSession>(
      await password(email, secret).catch((error) => {
        throw fromStoreError(error);
      }),
    );
  });

  return app;
}

/**
 * Supabase Auth's password grant, relayed (a plain fetch, no shared client keeping a session). The console
 * still checks `/api/admin/me`: a user without the admin role gets a token that every admin call refuses.
 */
export function supabasePasswordSignIn({
  url,
  anonKey,
  timeoutMs = 4_000,
}: {
  url: string;
  anonKey: string;
  timeoutMs?: number;
}) {
  const endpoint = new URL('auth/v1/token?grant_type=password', url.endsWith('/') ? url : `${url}/`).href;
  return async function passwordSignIn(email: string, password: string): Promise<AdminSession> {
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: { apikey: anonKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email, password }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new StoreError('unavailable', `password sign-in: ${String(error)}`, { cause: error });
    }
    const body = (await response.json().catch(() => null)) as { access_token?: string; expires_in?: number } | null;
    if (response.status === 400 || response.status === 401)
      throw new AppError(401, 'unauthorized', 'Wrong email or password.');
    if (response.status === 429)
      throw new AppError(429, 'rate_limited', 'Too many sign-in attempts. Please wait a minute.');
    if (!response.ok || !body?.access_token)
      throw new StoreError('unavailable', `password sign-in failed: ${response.status}`);
    return { access_token: body.access_token, expires_in: body.expires_in ?? 3600 };
  };
}
