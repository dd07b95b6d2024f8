/**
 * Timeouts and retries of the Supabase store's calls. Every call has a per-attempt timeout, so a database
 * that hangs becomes a clean "unavailable" (503 / in-band `error`) instead of a request that never ends.
 * Only idempotent calls are retried — a read, or a write keyed so that doing it twice stores it once
 * (server/store/functions.ts says which) — and only on failures that may pass: no response at all (connection refused or
 * dropped, timeout: supabase-js reports status 0), 502, 503, 504. Retries back off exponentially with
 * jitter and stop at a deadline.
 *
 * The defaults fit a Cloudflare Worker: waiting is wall time, not CPU time (a request's CPU limit is
 * unaffected), a visitor learns within ~8 s that the database is unavailable, and a chat request stays far
 * below the subrequest limit (≤ 4 attempts per call, ~5 calls per question).
 */

export interface RetryPolicy {
  /** One attempt's limit (ms). */
  attemptTimeoutMs: number;
  /** No retry starts after this much time since the first attempt (ms). */
  deadlineMs: number;
  /** First backoff (ms); doubled per retry, ±50 % jitter. */
  backoffMs: number;
  /** Attempts at most, the first included. */
  maxAttempts: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attemptTimeoutMs: 4_000,
  deadlineMs: 8_000,
  backoffMs: 100,
  maxAttempts: 4,
};

/** A policy from one per-attempt timeout (KB_DB_TIMEOUT_MS): the deadline is two attempts' worth. */
export function retryPolicyFor(attemptTimeoutMs: number): RetryPolicy {
  return { ...DEFAULT_RETRY_POLICY, attemptTimeoutMs, deadlineMs: 2 * attemptTimeoutMs };
}

/** No response (status 0: refused, dropped, timed out) or a gateway saying the database is not there now. */
export function isTransient(status: number): boolean {
  return status === 0 || status === 502 || status === 503 || status === 504;
}

/**
 * Runs `attempt` (given its timeout signal) until it returns a non-transient result, or — when `retry` is
 * false — once. Returns the last result; never throws on its own.
 */
export async function withRetry<R extends { status: number }>(
  attempt: (signal: AbortSignal) => PromiseLike<R>,
  retry: boolean,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<R> {
  const started = Date.now();
  for (let n = 1; ; n++) {
    const left = policy.deadlineMs - (Date.now() - started);
    const result = await attemptWithin(attempt, Math.max(1, Math.min(policy.attemptTimeoutMs, left)));
    if (!retry || !isTransient(result.status) || n >= policy.maxAttempts) return result;
    const wait = policy.backoffMs * 2 ** (n - 1) * (0.5 + Math.random());
    if (Date.now() - started + wait >= policy.deadlineMs) return result;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * One attempt, aborted after `ms` with a TimeoutError (as `AbortSignal.timeout` would) — on the global
 * setTimeout, so a test can run the clock.
 */
async function attemptWithin<R>(attempt: (signal: AbortSignal) => PromiseLike<R>, ms: number): Promise<R> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ms,
  );
  try {
    return await attempt(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
