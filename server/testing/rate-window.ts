/**
 * Waits, when needed, until a test that fills a rate limit has `marginMs` of the current window left.
 * The limits count in fixed windows aligned to the clock — `rate_limit_hit` starts a window at a multiple
 * of its length since the Unix epoch, and workerd's rate-limit binding (miniflare) buckets by
 * `floor(now / period)` — so a loop of requests that crosses a window's edge starts counting again, and a
 * test expecting the limit-th request to be the last one let through would fail about once in sixty runs
 * of a one-second loop against a one-minute window.
 */
export async function clearOfWindowEdge(windowSeconds: number, marginMs = 10_000): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
