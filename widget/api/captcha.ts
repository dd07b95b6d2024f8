/**
 * Cloudflare Turnstile before an anonymous sign-in, when the server asks for it (`captcha` in /api/config).
 * Turnstile's script is Cloudflare's (the one third-party origin the widget then uses; a site's CSP must allow
 * it, see docs/widget.md). Its widget renders into a light-DOM child of `<kb-chat>` slotted into the panel
 * (`slot="captcha"`), because the challenge's iframe must live in the document, not in a shadow root; with
 * `appearance: 'interaction-only'` it shows only when Cloudflare wants the visitor to click.
 */
import type { CaptchaConfig } from '../../protocol/api.ts';
import { allowScriptURL, scriptURL } from '../trusted-types.ts';

interface Turnstile {
  render(container: HTMLElement, options: Record<string, unknown>): string | undefined;
  remove(widgetId: string): void;
}

/** A visitor who has to solve an interactive challenge gets this long. */
const SOLVE_TIMEOUT_MS = 120_000;
const scripts = new Map<string, Promise<Turnstile>>();

function loadTurnstile(url: string): Promise<Turnstile> {
  let loading = scripts.get(url);
  if (!loading) {
    loading = new Promise<Turnstile>((resolve, reject) => {
      allowScriptURL(url);
      const script = document.createElement('script');
      script.src = scriptURL(url);
      script.async = true;
      script.addEventListener('load', () => {
        const turnstile = (globalThis as { turnstile?: Turnstile }).turnstile;
        if (turnstile) resolve(turnstile);
        else reject(new Error('the CAPTCHA script did not define turnstile'));
      });
      script.addEventListener('error', () => reject(new Error('the CAPTCHA script failed to load')));
      document.head.append(script);
    });
    // A failed load may be tried again (a later sign-in).
    loading.catch(() => scripts.delete(url));
    scripts.set(url, loading);
  }
  return loading;
}

/** Solves the challenge for a sign-in: its token, or a rejection (failed, expired, timed out). */
export async function solveCaptcha(host: HTMLElement, config: CaptchaConfig): Promise<string> {
  const turnstile = await loadTurnstile(config.script_url);
  const container = document.createElement('div');
  container.slot = 'captcha';
  host.append(container);
  let widgetId: string | undefined;
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the CAPTCHA was not solved in time')), SOLVE_TIMEOUT_MS);
      const settle = (fn: () => void) => () => {
        clearTimeout(timer);
        fn();
      };
      widgetId = turnstile.render(container, {
        sitekey: config.site_key,
        appearance: 'interaction-only',
        callback: (token: string) => settle(() => resolve(token))(),
        'error-callback': settle(() => reject(new Error('the CAPTCHA failed'))),
        'expired-callback': settle(() => reject(new Error('the CAPTCHA expired'))),
      });
    });
  } finally {
    if (widgetId !== undefined) turnstile.remove(widgetId);
    container.remove();
  }
}
