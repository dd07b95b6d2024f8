/**
 * Anonymous sign-ups per client IP. Each sign-up creates a user (locally an auth.users row; on Supabase one of
 * the project's anonymous sign-ins, whose per-IP quota every visitor shares because they all reach Supabase
 * from the Worker's egress addresses), and a fresh user also starts with a fresh per-user rate limit. So the
 * API limits sign-ups by the address the request came from — the socket's on Node, `CF-Connecting-IP` on
 * Workers (set by Cloudflare's edge, which overwrites any value a client sends) — never by a header a client
 * controls on a server it reaches directly.
 */

export interface SignupLimiter {
  /** Counts one sign-up from `ip`; `retryAfter` (seconds) when it is over the limit. */
  hit(ip: string): Promise<{ allowed: true } | { allowed: false; retryAfter: number }>;
}

/**
 * One process (the embedded Node server): fixed windows in memory. At most `maxKeys` addresses are kept; when
 * full, finished windows are dropped first, and if every address is still inside its window the oldest
 * window goes (a flood of addresses forgets the oldest, it does not grow the process).
 */
export class MemorySignupLimiter implements SignupLimiter {
  private readonly windows = new Map<string, { start: number; hits: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
  ) {}

  async hit(ip: string) {
    const now = this.now();
    const windowMs = this.windowSeconds * 1000;
    let entry = this.windows.get(ip);
    if (!entry || now - entry.start >= windowMs) {
      if (!entry && this.windows.size >= this.maxKeys) this.evict(now, windowMs);
      entry = { start: now, hits: 0 };
      this.windows.set(ip, entry);
    }
    entry.hits += 1;
    if (entry.hits <= this.limit) return { allowed: true as const };
    return { allowed: false as const, retryAfter: Math.max(1, Math.ceil((entry.start + windowMs - now) / 1000)) };
  }

  private evict(now: number, windowMs: number): void {
    for (const [ip, entry] of this.windows) if (now - entry.start >= windowMs) this.windows.delete(ip);
    if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
  }
}

/** Cloudflare's Workers rate-limiting binding (wrangler.toml `[[ratelimits]]`): limit and period are set there. */
export interface RateLimitBinding {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

export function bindingSignupLimiter(binding: RateLimitBinding, periodSeconds: number): SignupLimiter {
  return {
    async hit(ip) {
      const { success } = await binding.limit({ key: `signup:${ip}` });
      return success ? { allowed: true as const } : { allowed: false as const, retryAfter: periodSeconds };
    },
  };
}
