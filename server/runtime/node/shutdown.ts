/**
 * Graceful shutdown of the Node server (SIGTERM from a process manager, SIGINT from Ctrl-C):
 *
 * 1. **Stop accepting.** The listening socket closes and idle keep-alive connections with it; a request that
 *    still arrives on an open connection is answered 503 with `Retry-After` and `Connection: close` (the
 *    widget explains a 503, and its Retry goes to whichever instance comes next).
 * 2. **Let open answers finish, within a bound.** Requests already inside the app run to their end and open
 *    streams send the rest of their answer; each stream stores its answer before it ends. At `graceMs` the
 *    remaining connections are closed — their answers are still stored (stream.ts stores in `finally`), so a
 *    retry with the same message id replays them instead of answering twice.
 * 3. **Webhook deliveries** the last requests started get a short wait (`settleWebhooks`); any still running
 *    after it are dropped, and the log says how many (their receivers will not get those events).
 * 4. The caller then closes PGlite (a clean shutdown: nothing to recover on the next start) and exits.
 *
 * A second signal is the caller's: exit at once (see `onShutdownSignals`).
 */
import type { ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import type { StreamSlots } from '../../chat/route.ts';
import { errorBody } from '../../http/errors.ts';
import type { Webhooks } from '../../webhooks/dispatcher.ts';

export interface DrainReport {
  /** Requests and streams in progress when the signal came. */
  inFlight: number;
  /** Whether the grace period ran out and connections were closed under open answers. */
  cut: boolean;
  seconds: number;
}

type Fetch = (request: Request, ...rest: never[]) => Response | Promise<Response>;

/** Counts requests inside the app, turns new ones away while draining, and drains on demand. */
export class Drain {
  private inside = 0;
  private draining = false;

  constructor(private readonly streams: StreamSlots) {}

  /** Wraps the app's fetch: counted while it runs; 503 once draining. */
  guard<F extends Fetch>(fetch: F): F {
    return (async (request: Request, ...rest: never[]) => {
      if (this.draining) {
        return new Response(
          JSON.stringify(errorBody('unavailable', 'The server is restarting. Please try again in a moment.')),
          {
            status: 503,
            headers: { 'Content-Type': 'application/json', 'Retry-After': '5', Connection: 'close' },
          },
        );
      }
      this.inside += 1;
      try {
        return await fetch(request, ...rest);
      } finally {
        this.inside -= 1;
      }
    }) as F;
  }

  /** Requests inside the app (for a stream: until its Response starts) plus open streams (until stored). */
  get inFlight(): number {
    return this.inside + this.streams.open;
  }

  async shutdown(server: ServerType, graceMs: number): Promise<DrainReport> {
    const started = performance.now();
    const inFlight = this.inFlight;
    this.draining = true;
    const http = server as Server;
    http.close();
    http.closeIdleConnections();
    const cut = !(await this.quiet(graceMs));
    if (cut) {
      // Past the bound: close every connection. Streams notice at their next write, store their answer and
      // release their slot; that takes a moment, not a client's goodwill.
      http.closeAllConnections();
      await this.quiet(5_000);
    }
    return { inFlight, cut, seconds: (performance.now() - started) / 1000 };
  }

  /** Resolves true once nothing is in flight, false if `ms` passes first. */
  private async quiet(ms: number): Promise<boolean> {
    const until = performance.now() + ms;
    while (this.inFlight > 0) {
      if (performance.now() >= until) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(25, Math.max(1, until - performance.now()))));
    }
    return true;
  }
}

/** Waits up to `ms` for webhook deliveries in progress; returns how many were dropped (and logs them). */
export async function settleWebhooks(
  webhooks: Pick<Webhooks, 'pending' | 'settle'>,
  ms: number,
  warn = console.warn,
): Promise<number> {
  if (webhooks.pending === 0 || (await webhooks.settle(ms))) return 0;
  const dropped = webhooks.pending;
  warn(`[kb-chat] ${dropped} webhook deliveries were still running after ${ms / 1000} s: dropped.`);
  return dropped;
}

/**
 * SIGTERM and SIGINT: the first one runs `graceful` (which should end the process); a second one exits at
 * once with 128 + the signal's number, as a shell reports a signal death.
 */
export function onShutdownSignals(graceful: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) {
        console.error(`[kb-chat] ${signal} again: exiting now`);
        process.exit(signal === 'SIGINT' ? 130 : 143);
        return;
      }
      stopping = true;
      void graceful(signal).catch((error: unknown) => {
        console.error('[kb-chat] shutdown failed', error);
        process.exit(1);
      });
    });
  }
}
