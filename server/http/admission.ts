/**
 * Admission control for a server whose database answers one query at a time (the embedded PGlite: one
 * connection, one thread). Without it, 200 visitors asking at once all start, their queries interleave on
 * that one connection, and every one of them finishes late (at 22k chunks, before commit 091ad2e added it:
 * 50 at once → 36 s to the first byte, p50).
 *
 * With it, at most `concurrency` requests are inside the database phase at once (auth, rate limit, turn,
 * retrieval, up to the first byte of the answer; streaming the answer happens after and is not counted);
 * the rest wait in arrival order. Admission works to a latency budget (`budgetMs`): a request whose
 * expected time to the start of its response — the event loop's recent lateness, its wait for a place and
 * its own service time, all measured — would exceed the budget is not queued at all: it gets 503 with a
 * `Retry-After` at once, so the visitors who are served stay fast and the others are told when to come back
 * (the widget already explains a 503). The same test applies to a free place beyond the first two: when
 * service times have grown (the cores are busy, with this process or with another) fewer requests run at once. A request whose
 * estimate was wrong is still sent away when its actual wait passes what its budget leaves.
 *
 * The budget is per process: each server sees its own queue and its own event loop, and sees the other
 * processes on its machine only through the wall-clock times it measures.
 *
 * Workers + Supabase do not need it (isolates scale out, Supabase pools connections); `createApp` applies it
 * only when given options (the Node entry does).
 */
import type { MiddlewareHandler } from 'hono';
import { AppError } from './errors.ts';

export interface AdmissionOptions {
  /** Requests inside the database phase at once, at most. */
  concurrency: number;
  /**
   * The time a request should take from arriving to the start of its response, as far as this process can
   * foresee it (KB_MAX_WAIT_MS): one expected to take longer is answered 503 at once instead of queued.
   */
  budgetMs: number;
  /** How late the event loop has recently been (loop-delay.ts); unset: not counted. */
  loopDelayMs?: () => number;
  /** Where in the Retry-After window a visitor turned away falls, in [0, 1) (default Math.random). */
  random?: () => number;
}

/** Requests admitted at once whatever the estimate (PGlite's whole concurrency). */
export const ALWAYS_ADMITTED = 2;

/** The longest Retry-After sent: the widget waits out up to 30 s on its own, then leaves it to the visitor. */
export const MAX_RETRY_AFTER_SECONDS = 10;

/** A count of events that decays by a factor e every second: about how many happened in the last second. */
class RecentCount {
  private value = 0;
  private at = 0;
  add(): void {
    this.value = this.now() + 1;
  }
  now(): number {
    const t = performance.now();
    this.value *= Math.exp(-(t - this.at) / 1000);
    this.at = t;
    return this.value;
  }
}

interface Waiter {
  /** Takes the place handed over; false if the waiter has already given up (then pass the place on). */
  admit: () => boolean;
}

/** Shared by every route it guards: one queue per process. */
export class AdmissionQueue {
  private active = 0;
  private readonly waiting: Waiter[] = [];
  /** Moving average of an admitted request's duration (ms, wall clock): the basis of the estimates. */
  private serviceMs = 10;
  /** Requests finished and requests turned away, about how many in the last second. */
  private readonly served = new RecentCount();
  private readonly rejected = new RecentCount();

  constructor(readonly options: AdmissionOptions) {}

  /**
   * Expected time (ms) from now to the start of the response of a request arriving now: the event loop's
   * recent lateness (the request waited about that long before this code saw it), its wait for a place (one
   * service time per `concurrency` requests ahead of it) and its own service time. Service times are
   * measured in wall-clock time, so they grow when the cores are busy with anything else — the other
   * requests, PostgreSQL, a second server on the same machine.
   */
  expectedMs(): number {
    return this.loopDelay() + this.waitMs() + this.serviceMs;
  }

  private waitMs(): number {
    if (this.active < this.options.concurrency) return 0;
    return Math.ceil((this.waiting.length + 1) / this.options.concurrency) * this.serviceMs;
  }

  private loopDelay(): number {
    return this.options.loopDelayMs?.() ?? 0;
  }

  /** Resolves with `leave` once admitted; rejects with a 503 AppError when it would take too long. */
  enter(): Promise<() => void> {
    // The first ALWAYS_ADMITTED at once are always admitted: an idle process has nothing better to do, only
    // finished requests keep the service time current (a process that shed everything would never learn
    // that the load has passed), and two visitors at once on a cold server (its first requests are slow)
    // must not be turned away.
    if (this.active < Math.min(ALWAYS_ADMITTED, this.options.concurrency)) {
      this.active += 1;
      return Promise.resolve(this.started());
    }
    const expected = this.expectedMs();
    if (expected > this.options.budgetMs) return Promise.reject(this.busy(expected));
    if (this.active < this.options.concurrency) {
      this.active += 1;
      return Promise.resolve(this.started());
    }
    // Queued: it may wait what its budget leaves after its own service time and the loop's lateness.
    const maxWaitMs = this.options.budgetMs - this.serviceMs - this.loopDelay();
    return new Promise((resolve, reject) => {
      // Admission and the wait bound can fall due in the same instant; whichever comes first settles the
      // waiter, the other does nothing (a place handed to a waiter that already gave up is passed on).
      let settled = false;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(this.busy(this.expectedMs()));
      }, maxWaitMs);
      const waiter: Waiter = {
        admit: () => {
          if (settled) return false;
          settled = true;
          clearTimeout(timer);
          resolve(this.started());
          return true;
        },
      };
      this.waiting.push(waiter);
    });
  }

  /** The `leave` of an admitted request (its place is already counted in `active`). */
  private started(): () => void {
    const since = performance.now();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.serviceMs = 0.8 * this.serviceMs + 0.2 * (performance.now() - since);
      this.served.add();
      this.handOver();
    };
  }

  /**
   * A place is free: it goes to the first waiter — on a macrotask rather than inside the leaving request's
   * promise chain, so new connections and open streams get a turn between one request's database work and
   * the next (not measured on its own: the bench's concurrency table was taken with it). The place stays
   * counted while it is handed over, so no newcomer slips in beside the waiter.
   */
  private handOver(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.active -= 1;
      return;
    }
    setTimeout(() => {
      if (!next.admit()) this.handOver();
    }, 0);
  }

  /**
   * The 503 of a request turned away. Its Retry-After says when there is likely room: the requests waiting
   * and those turned away in the last second, at the rate requests have been finishing — the time the server
   * needs to serve them, at most MAX_RETRY_AFTER_SECONDS. Each visitor turned away is given a time spread
   * over that window (× 0.1–1, at random), so the crowd comes back at about the rate it can be served, not all
   * in the same second to be turned away again (each refusal costs the server a few milliseconds of its cores
   * too). The window is capped before it is spread: capping after (as this did before) sent every visitor of
   * a large crowd the same 10 s, and on the 2-core bench (200 visitors on two servers, crowd.ts) they all
   * came back together, were turned away together, and the cores idled in between. At least the expected
   * time, and at least 1 s.
   */
  private busy(expectedMs: number): AppError {
    this.rejected.add();
    const perSecond = Math.max(1, this.served.now());
    const drainSeconds = (this.waiting.length + this.rejected.now()) / perSecond;
    const spread =
      Math.min(drainSeconds, MAX_RETRY_AFTER_SECONDS) * (0.1 + 0.9 * (this.options.random ?? Math.random)());
    const seconds = Math.max(1, Math.ceil(expectedMs / 1000), Math.ceil(spread));
    const error = new AppError(503, 'unavailable', 'Many people are asking right now. Please try again in a moment.');
    return Object.assign(error, { retryAfterSeconds: Math.min(MAX_RETRY_AFTER_SECONDS, seconds) });
  }
}

/**
 * @example
 * const queue = new AdmissionQueue({ concurrency: 2, budgetMs: 500 });
 * app.use('/api/chat', admission(queue));
 */
export function admission(queue: AdmissionQueue): MiddlewareHandler {
  return async function admissionMiddleware(c, next) {
    let leave: () => void;
    const arrived = performance.now();
    try {
      leave = await queue.enter();
    } catch (error) {
      c.header('Retry-After', String((error as { retryAfterSeconds?: number }).retryAfterSeconds ?? 1));
      throw error;
    }
    const waited = performance.now() - arrived;
    try {
      await next();
    } finally {
      leave();
    }
    c.res.headers.append('Server-Timing', `queue;dur=${waited.toFixed(1)}`);
  };
}
