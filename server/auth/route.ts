/**
 * `POST /api/auth/anonymous` and `POST /api/auth/refresh`: how the widget gets, and keeps, an access token
 * when the host page does not supply one. Sign-in and refresh are the runtime's (local: our own tokens;
 * Workers: Supabase Auth relayed); this route adds what both need in front of them: sign-ups and refreshes
 * limited per client network (../http/client-limit.ts), an optional CAPTCHA (checked here or relayed), and
 * validated bodies.
 */
import { Hono } from 'hono';
import { AnonymousAuthRequestSchema, RefreshAuthRequestSchema, type AnonymousAuth } from '../../protocol/index.ts';
import { parseBody, readJson } from '../http/body.ts';
import { AppError, errorBody, fromStoreError } from '../http/errors.ts';
import { limitPerClient, type ClientAddress, type ClientLimiter } from '../http/client-limit.ts';
import { clientKey } from '../http/client-key.ts';
import type { CaptchaOptions } from './captcha.ts';

export interface AuthRouteOptions {
  /** Creates the user; gets the CAPTCHA token when there is one, to relay it (Supabase Auth checks it). */
  signIn: (captchaToken?: string) => Promise<AnonymousAuth>;
  /** A new access token for the refresh token's user; rejects with a 401 AppError for a bad token. */
  refresh?: (refreshToken: string) => Promise<AnonymousAuth>;
  /** Sign-ups per client network; none when unset. */
  signupLimiter?: ClientLimiter;
  /**
   * Refreshes per client network; none when unset. Each refresh writes a token (locally) or calls Supabase
   * Auth, whose token endpoint has a per-IP quota every visitor of a Worker shares.
   */
  refreshLimiter?: ClientLimiter;
  /** The request's client address as the runtime knows it (socket address, CF-Connecting-IP); null if unknown. */
  clientIp?: ClientAddress;
  /** A CAPTCHA before every sign-up (server/auth/captcha.ts). */
  captcha?: CaptchaOptions;
}

export function authRoute({ signIn, refresh, signupLimiter, refreshLimiter, clientIp, captcha }: AuthRouteOptions) {
  const app = new Hono();

  app.post('/anonymous', async function anonymousSignIn(c) {
    // The body is optional (older widgets send none); when present it is validated like every body.
    const text = await c.req.text();
    const { captcha_token: captchaToken } = text.trim() ? parseBody(AnonymousAuthRequestSchema, parseJson(text)) : {};
    if (captcha && !captchaToken)
      throw new AppError(400, 'captcha_required', 'captcha_token: is required: solve the check first.');
    const ip = clientIp?.(c) ?? null;
    if (signupLimiter) {
      // By network (an IPv6 client by its /64); requests whose address is unknown share one budget.
      const verdict = await signupLimiter.hit(clientKey(ip));
      if (!verdict.allowed) {
        return c.json(errorBody('rate_limited', 'Too many new chats from your network. Please try again later.'), 429, {
          'Retry-After': String(verdict.retryAfter),
        });
      }
    }
    if (captcha?.verify) {
      const passed = await captcha.verify(captchaToken!, ip).catch((error) => {
        throw fromStoreError(error);
      });
      if (!passed) throw captchaFailed();
    }
    const auth = await signIn(captchaToken).catch((error) => {
      throw fromStoreError(error);
    });
    return c.json<AnonymousAuth>(auth);
  });

  if (refresh) {
    if (refreshLimiter) {
      app.use(
        '/refresh',
        limitPerClient({
          limiter: refreshLimiter,
          clientIp,
          message: 'Too many session renewals from your network. Please try again in a minute.',
        }),
      );
    }
    app.post('/refresh', async function refreshToken(c) {
      const { refresh_token } = parseBody(RefreshAuthRequestSchema, await readJson(c.req.raw));
      const auth = await refresh(refresh_token).catch((error) => {
        throw fromStoreError(error);
      });
      return c.json<AnonymousAuth>(auth);
    });
  }
  return app;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError(400, 'invalid_request', 'body: must be JSON.');
  }
}

export const captchaFailed = () => new AppError(403, 'forbidden', 'The anti-bot check failed. Please try again.');

export const invalidRefreshToken = () =>
  new AppError(401, 'unauthorized', 'This session can no longer be renewed. Please sign in again.');
