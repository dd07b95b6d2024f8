/**
 * Timeouts and retries of the Supabase store's calls on a fake clock (timers and Date), so "at the limit",
 * "before the deadline" and "past it" are exact rather than timings of this machine. The Worker with a real
 * Supabase-compatible server (test/workerd/faults.test.ts) covers the same policy with failures that need no
 * clock: 503s and dropped connections.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withRetry, type RetryPolicy } from './rpc-retry.ts';

const POLICY: RetryPolicy = { attemptTimeoutMs: 1_000, deadlineMs: 2_000, backoffMs: 100, maxAttempts: 4 };

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.spyOn(Math, 'random').mockReturnValue(0.5); // no jitter: each backoff is exactly backoffMs · 2^(n-1)
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** An attempt that hangs until its signal aborts, then reports no response (status 0), as supabase-js does. */
function hanging() {
  const log: { at: number; abortedAt?: number; reason?: string }[] = [];
  const attempt = (signal: AbortSignal) =>
    new Promise<{ status: number }>((resolve) => {
      const entry: (typeof log)[number] = { at: Date.now() };
      log.push(entry);
      signal.addEventListener('abort', () => {
        entry.abortedAt = Date.now();
        entry.reason = (signal.reason as DOMException).name;
        resolve({ status: 0 });
      });
    });
  return { attempt, log };
}

describe('withRetry on a call that never answers', () => {
  it('aborts each attempt at its limit with a TimeoutError and retries an idempotent call until the deadline', async () => {
    const { attempt, log } = hanging();
    const start = Date.now();
    const done = withRetry(attempt, true, POLICY);
    await vi.advanceTimersByTimeAsync(999);
    expect(log).toHaveLength(1);
    expect(log[0]!.abortedAt).toBeUndefined();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await done).toEqual({ status: 0 });
    // 0–1000: the first attempt; 100 ms backoff; then what is left of the 2 s deadline (900 ms).
    expect(log.map((e) => [e.at - start, e.abortedAt! - start, e.reason])).toEqual([
      [0, 1_000, 'TimeoutError'],
      [1_100, 2_000, 'TimeoutError'],
    ]);
  });

  it('tries a call that is not idempotent once, aborted at its limit', async () => {
    const { attempt, log } = hanging();
    const done = withRetry(attempt, false, POLICY);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await done).toEqual({ status: 0 });
    expect(log).toHaveLength(1);
    expect(log[0]!.abortedAt! - log[0]!.at).toBe(1_000);
  });

  it('makes at most maxAttempts attempts however long the deadline', async () => {
    const { attempt, log } = hanging();
    const done = withRetry(attempt, true, { ...POLICY, attemptTimeoutMs: 10, deadlineMs: 60_000 });
    await vi.advanceTimersByTimeAsync(60_000);
    await done;
    expect(log).toHaveLength(4);
  });
});

describe('withRetry on a slow call', () => {
  it('keeps an answer that comes just before the limit: one attempt, not aborted', async () => {
    let aborted = false;
    const done = withRetry(
      (signal) => {
        signal.addEventListener('abort', () => (aborted = true));
        return new Promise<{ status: number; data: string }>((resolve) =>
          setTimeout(() => resolve({ status: 200, data: 'rows' }), 999),
        );
      },
      true,
      POLICY,
    );
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await done).toEqual({ status: 200, data: 'rows' });
    expect(aborted).toBe(false);
  });

  it('absorbs a timeout that passes: the retry answers', async () => {
    let calls = 0;
    const done = withRetry(
      (signal) =>
        new Promise<{ status: number }>((resolve) => {
          if (++calls === 1) signal.addEventListener('abort', () => resolve({ status: 0 }));
          else resolve({ status: 200 });
        }),
      true,
      POLICY,
    );
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await done).toEqual({ status: 200 });
    expect(calls).toBe(2);
  });
});
