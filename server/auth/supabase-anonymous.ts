/**
 * `POST /api/auth/anonymous` on Workers: Supabase Auth's anonymous sign-up, so the widget gets a token the
 * same way everywhere. Supabase creates the auth.users row and signs the token with the project's key; the
 * Worker only relays it. A plain fetch rather than `supabase.auth.signInAnonymously()`: a shared client
 * would keep the session in memory and send it on later calls made for *other* visitors.
 */
import type { AnonymousAuth } from '../../protocol/index.ts';
import { AppError } from '../http/errors.ts';
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
  user?: { id?: string };
}

export function supabaseAnonymousSignIn({ url, anonKey, fetch: fetchFn = fetch, timeoutMs = 4_000 }: SupabaseAnonymousOptions) {
  const endpoint = new URL('auth/v1/signup', url.endsWith('/') ? url : `${url}/`).href;
  return async function anonymousSignIn(): Promise<AnonymousAuth> {
    let response: Response;
    try {
      response = await fetchFn(endpoint, {
        method: 'POST',
        headers: { apikey: anonKey, 'Content-Type': 'application/json' },
        // An empty body (no email, no phone) is what makes it an anonymous sign-up.
        body: '{}',
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
    if (!response.ok || !body?.access_token || !body.user?.id) {
      // 422 anonymous_provider_disabled: "Allow anonymous sign-ins" is off in the project's Auth settings.
      throw new StoreError('unavailable', `anonymous sign-in failed: ${response.status} ${body?.msg ?? ''}`.trim());
    }
    return { access_token: body.access_token, user_id: body.user.id, expires_in: body.expires_in ?? 3600 };
  };
}
