/**
 * Per-visitor rate limit, counted in the database by `rate_limit_hit` so that it holds
 * across server instances and Worker isolates. Every response of a limited endpoint carries
 * `X-RateLimit-Limit/Remaining/Reset`; a request over the limit gets 429 with `Retry-After`.
 */
import type { MiddlewareHandler } from 'hono';
import type { AuthVariables } from '../auth/jwt.ts';
import type { ChatStore } from '../store/types.ts';
import { errorBody, fromStoreError } from './errors.ts';

export interface RateLimitOptions {
  store: ChatStore;
  limit: number;
  windowSeconds: number;
  /** Endpoints sharing a bucket share the budget. */
  bucket?: string;
}

export function rateLimit({ store, limit, windowSeconds, bucket = 'api' }: RateLimitOptions): MiddlewareHandler<{
  Variables: AuthVariables;
}> {
  return async function rateLimitMiddleware(c, next) {
    const state = await store.rateLimitHit(c.get('claims'), bucket, limit, windowSeconds).catch((error) => {
      throw fromStoreError(error);
    });
    const resetSeconds = Math.ceil(state.reset_at.getTime() / 1000);
    const headers = {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(state.remaining),
      'X-RateLimit-Reset': String(resetSeconds),
    };
    if (!state.allowed) {
      const retryAfter = Math.max(1, resetSeconds - Math.floor(Date.now() / 1000));
      return c.json(
        errorBody(
          'rate_limited',
          `You're asking faster than we can answer. Please wait ${retryAfter} seconds and try again.`,
        ),
        429,
        { ...headers, 'Retry-After': String(retryAfter) },
      );
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
