/**
 * `POST /api/auth/anonymous` on Workers: Supabase Auth's anonymous sign-up, so the widget gets a token the
 * same way everywhere. Supabase creates the auth.users row and signs the token with the project's key; the
 * Worker only relays it. A plain fetch rather than `supabase.auth.signInAnonymously()`: a shared client
 * would keep the session in memory and send it on later calls made for *other* visitors.
 */
import type { AnonymousAuth } from '../../protocol/index.ts';
import { AppError } from '../http/errors.ts';
import { captchaFailed, invalidRefreshToken } from './route.ts';
import { StoreError } from '../store/types.ts';

export interface SupabaseAnonymousOptions {
  url: string;
  /** The anon (publishable) key. */
  anonKey: string;
  fetch?: typeof fetch;
  /**
   * A sign-up that takes longer is abandoned (503). Never retried: a lost answer may mean a user was created,
   * and a second attempt would create another.
   */
  timeoutMs?: number;
}

interface GoTrueSession {
  access_token?: string;
  expires_in?: number;
  refresh_token?: string;
  user?: { id?: string };
}

export function supabaseAnonymousSignIn({
  url,
  anonKey,
  fetch: fetchFn = fetch,
  timeoutMs = 4_000,
}: SupabaseAnonymousOptions) {
  const endpoint = new URL('auth/v1/signup', url.endsWith('/') ? url : `${url}/`).href;
  return async function anonymousSignIn(captchaToken?: string): Promise<AnonymousAuth> {
    let response: Response;
    try {
      response = await fetchFn(endpoint, {
        method: 'POST',
        headers: { apikey: anonKey, 'Content-Type': 'application/json' },
        // No email, no phone: an anonymous sign-up. A CAPTCHA token goes where Supabase Auth looks for it.
        body: JSON.stringify(captchaToken ? { gotrue_meta_security: { captcha_token: captchaToken } } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new StoreError('unavailable', `anonymous sign-in: ${String(error)}`, { cause: error });
    }
    const body = (await response.json().catch(() => null)) as (GoTrueSession & { msg?: string }) | null;
    if (response.status === 429) {
      // Supabase limits anonymous sign-ins per IP, and every visitor reaches it from the Worker's egress IPs.
      throw new AppError(429, 'rate_limited', 'Too many new chats right now. Please try again in a minute.');
    }
    // Supabase Auth's CAPTCHA protection refused the token (or wanted one).
    if (
      response.status === 400 &&
      /captcha/i.test(`${(body as { error_code?: string } | null)?.error_code ?? ''} ${body?.msg ?? ''}`)
    ) {
      throw captchaFailed();
    }
    if (!response.ok || !body?.access_token || !body.user?.id) {
      // 422 anonymous_provider_disabled: "Allow anonymous sign-ins" is off in the project's Auth settings.
      throw new StoreError('unavailable', `anonymous sign-in failed: ${response.status} ${body?.msg ?? ''}`.trim());
    }
    return session(body.access_token, body.user.id, body);
  };
}

function session(accessToken: string, userId: string, body: GoTrueSession): AnonymousAuth {
  return {
    access_token: accessToken,
    user_id: userId,
    expires_in: body.expires_in ?? 3600,
    ...(body.refresh_token ? { refresh_token: body.refresh_token } : {}),
  };
}

/**
 * `POST /api/auth/refresh` on Workers: Supabase Auth's refresh-token grant, relayed. Supabase rotates the
 * refresh token (the old one stops working) and keeps the user, so the visitor keeps their history. Never
 * retried, for the same reason as the sign-up: a lost answer may have used the token up.
 */
export function supabaseRefresh({ url, anonKey, fetch: fetchFn = fetch, timeoutMs = 4_000 }: SupabaseAnonymousOptions) {
  const endpoint = new URL('auth/v1/token?grant_type=refresh_token', url.endsWith('/') ? url : `${url}/`).href;
  return async function refresh(refreshToken: string): Promise<AnonymousAuth> {
    let response: Response;
    try {
      response = await fetchFn(endpoint, {
        method: 'POST',
        headers: { apikey: anonKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ refresh_token: refreshToken }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new StoreError('unavailable', `token refresh: ${String(error)}`, { cause: error });
    }
    const body = (await response.json().catch(() => null)) as
      | (GoTrueSession & { msg?: string; error_code?: string })
      | null;
    // 400 invalid_grant / refresh_token_not_found / refresh_token_already_used: the visitor signs in anew.
    if (response.status === 400 || response.status === 401) throw invalidRefreshToken();
    if (response.status === 429)
      throw new AppError(429, 'rate_limited', 'Too many requests right now. Please try again in a minute.');
    if (!response.ok || !body?.access_token || !body.user?.id) {
      throw new StoreError('unavailable', `token refresh failed: ${response.status} ${body?.msg ?? ''}`.trim());
    }
    return session(body.access_token, body.user.id, body);
  };
}
