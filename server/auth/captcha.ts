/**
 * Cloudflare Turnstile in front of anonymous sign-ups (optional): against scripted sign-ups from many
 * addresses, which a per-IP limit does not stop. The widget solves the challenge and sends its token with
 * `POST /api/auth/anonymous`; the token is checked here with Turnstile's siteverify (the embedded server,
 * `KB_CAPTCHA_SECRET`), or relayed to Supabase Auth, which checks it with the project's CAPTCHA protection
 * (Workers: no secret in the Worker).
 */
import type { CaptchaConfig } from '../../protocol/index.ts';
import { StoreError } from '../store/types.ts';

export const TURNSTILE_SCRIPT_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';
export const TURNSTILE_VERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';

export interface CaptchaOptions {
  /** What `/api/config` tells the widget. */
  config: CaptchaConfig;
  /** Checks a token here; absent when the sign-in relays it to a service that checks it (Supabase Auth). */
  verify?: (token: string, remoteIp: string | null) => Promise<boolean>;
}

export function turnstileConfig(siteKey: string, scriptUrl = TURNSTILE_SCRIPT_URL): CaptchaConfig {
  return { provider: 'turnstile', site_key: siteKey, script_url: scriptUrl };
}

/** Turnstile's server-side check (siteverify): the token, the secret and the visitor's address. */
export function turnstileVerifier({
  secret,
  url = TURNSTILE_VERIFY_URL,
  fetch: fetchFn = fetch,
  timeoutMs = 4_000,
}: {
  secret: string;
  url?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}) {
  return async function verifyTurnstile(token: string, remoteIp: string | null): Promise<boolean> {
    const form = new URLSearchParams({ secret, response: token });
    if (remoteIp) form.set('remoteip', remoteIp);
    let response: Response;
    try {
      response = await fetchFn(url, { method: 'POST', body: form, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw new StoreError('unavailable', `captcha check: ${String(error)}`, { cause: error });
    }
    if (!response.ok) throw new StoreError('unavailable', `captcha check answered ${response.status}`);
    const body = (await response.json().catch(() => null)) as { success?: unknown } | null;
    return body?.success === true;
  };
}
