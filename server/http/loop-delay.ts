/**
 * How late this process's event loop has recently been: a timer asks to run every `intervalMs` and records
 * how much later than asked it ran. A request arriving now waits about that long before the server's code
 * even sees it (its bytes sit in the socket until the loop comes round), and again before the first byte of
 * its answer leaves — time no handler can measure on itself. The loop is late when this process has more
 * JavaScript to run than one core gives it, or when another process on the same cores (PostgreSQL, a second
 * server, anything else on the machine) holds the core: so it sees contention from outside the process too.
 *
 * `delayMs()` is the mean lateness over the last `windowMs`, or how overdue the next tick is right now if
 * that is more: the delay a request arriving now can expect. A mean rather than the maximum: on a shared
 * machine the scheduler holds a process off its core for tens of milliseconds now and then, and a maximum
 * would let one such pause turn every request away for the whole window.
 */
export interface LoopDelay {
  /** Expected lateness (ms) of the event loop for a request arriving now. */
  delayMs(): number;
  stop(): void;
}

export function monitorLoopDelay(intervalMs = 20, windowMs = 500): LoopDelay {
  const slots = Math.max(1, Math.round(windowMs / intervalMs));
  const recent = new Float64Array(slots);
  let at = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    recent[at] = Math.max(0, now - last - intervalMs);
    at = (at + 1) % slots;
    last = now;
  }, intervalMs);
  // Never the reason the process stays up.
  timer.unref?.();
  return {
    delayMs() {
      // The tick that is due but has not run yet is late by as much as it is overdue right now.
      const overdue = Math.max(0, performance.now() - last - intervalMs);
      let sum = 0;
      for (const value of recent) sum += value;
      return Math.max(overdue, sum / slots);
    },
    stop: () => clearInterval(timer),
  };
}
