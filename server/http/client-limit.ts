/**
 * Limits per client address, for the routes that come before any user exists, so the per-user limit in the
 * database (./rate-limit.ts) cannot apply: anonymous sign-up (each creates a user, and on Supabase uses up
 * the project's per-IP sign-in quota, which every visitor shares because they all reach Supabase from the
 * Worker's egress addresses), refresh, and the console's two sign-in routes. The address is the one the
 * runtime knows — the socket's on Node, `CF-Connecting-IP` on Workers (set by Cloudflare's edge, which
 * overwrites any value a client sends) — never a header a client controls on a server it reaches directly,
 * and it is counted by network (./client-key.ts: an IPv6 client by its /64).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { clientKey } from './client-key.ts';
import { errorBody } from './errors.ts';

export interface ClientLimiter {
  /** Counts one request from `key`; `retryAfter` (seconds) when it is over the limit. */
  hit(key: string): Promise<{ allowed: true } | { allowed: false; retryAfter: number }>;
}

/**
 * One process (the embedded Node server): fixed windows in memory. At most `maxKeys` clients are kept; when
 * full, finished windows are dropped first, and if every client is still inside its window the oldest
 * window goes (a flood of addresses forgets the oldest, it does not grow the process).
 */
export class MemoryClientLimiter implements ClientLimiter {
  private readonly windows = new Map<string, { start: number; hits: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  async hit(key: string) {
    const now = this.now();
    const windowMs = this.windowSeconds * 1000;
    let entry = this.windows.get(key);
    if (!entry || now - entry.start >= windowMs) {
      if (!entry && this.windows.size >= this.maxKeys) this.evict(now, windowMs);
      entry = { start: now, hits: 0 };
      this.windows.set(key, entry);
    }
    entry.hits += 1;
    if (entry.hits <= this.limit) return { allowed: true as const };
    return { allowed: false as const, retryAfter: Math.max(1, Math.ceil((entry.start + windowMs - now) / 1000)) };
  }

  private evict(now: number, windowMs: number): void {
    for (const [key, entry] of this.windows) if (now - entry.start >= windowMs) this.windows.delete(key);
    if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
  }
}

/** Cloudflare's Workers rate-limiting binding (wrangler.toml `[[ratelimits]]`): limit and period are set there. */
export interface RateLimitBinding {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/** A limiter over a binding; `prefix` keeps the keys of routes that might share one binding apart. */
export function bindingLimiter(binding: RateLimitBinding, periodSeconds: number, prefix: string): ClientLimiter {
  return {
    async hit(key) {
      const { success } = await binding.limit({ key: `${prefix}:${key}` });
      return success ? { allowed: true as const } : { allowed: false as const, retryAfter: periodSeconds };
    },
  };
}

/** The client's address as the runtime knows it (socket address, CF-Connecting-IP); null if unknown. */
export type ClientAddress = (c: Context) => string | null;

/**
 * Middleware: counts the request against its client's budget before anything else runs (body parsing, a
 * database or Supabase Auth call), and answers 429 `rate_limited` with Retry-After past it.
 */
export function limitPerClient({
  limiter,
  clientIp,
  message,
}: {
  limiter: ClientLimiter;
  clientIp?: ClientAddress;
  message: string;
}): MiddlewareHandler {
  return async function limitPerClientMiddleware(c, next) {
    const verdict = await limiter.hit(clientKey(clientIp?.(c)));
    if (!verdict.allowed)
      return c.json(errorBody('rate_limited', message), 429, { 'Retry-After': String(verdict.retryAfter) });
    await next();
  };
}
