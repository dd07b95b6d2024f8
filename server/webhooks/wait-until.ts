import type { Context } from 'hono';
import type { WaitUntil } from './dispatcher.ts';

/**
 * The runtime's way to keep work alive after the response: Workers' `executionCtx.waitUntil` (an isolate
 * may otherwise be stopped once the response is sent). Node has none — Hono's getter throws there — and
 * needs none: the process keeps running, and the dispatcher tracks its deliveries for the shutdown.
 */
export function waitUntilOf(c: Context): WaitUntil | undefined {
  try {
    const ctx = c.executionCtx;
    return (task) => ctx.waitUntil(task);
  } catch {
    return undefined;
  }
}
