/**
 * How late the Node event loop runs, for admission control. On the embedded server one thread does
 * everything: PGlite's queries (WebAssembly, synchronous while they run), token checks, and writing every
 * open answer stream. Admission's queue bounds the wait for the database, but when the thread itself is
 * saturated an admitted question's first byte also waits behind everything else. The event loop's delay
 * tells that (the approach of Fastify's under-pressure), and admission turns visitors away while it is
 * high. Measured with the bench's 10k knowledge base, 50 visitors × 3 questions at once: served time to
 * first byte p99 2.3 s without this check, 0.9 s with it (more of them get a 503 and Retry-After instead).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Starts sampling; returns a function giving the event loop's median delay (ms) over the last window,
 * the sampling interval included (≈ 10 ms when idle). The median, not a high percentile or the mean: one
 * slow query (a cold cache after start-up) stalls the loop once, which must not turn visitors away for a
 * whole window; a saturated loop is late on most turns.
 */
export function eventLoopDelay(windowMs = 1000): () => number {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let current = 0;
  const timer = setInterval(() => {
    current = histogram.count > 0 ? histogram.percentile(50) / 1e6 : 0;
    histogram.reset();
  }, windowMs);
  timer.unref();
  return () => current;
}
