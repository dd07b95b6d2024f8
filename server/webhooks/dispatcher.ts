/**
 * Webhook delivery, off the request path: `emit` returns at once and never throws; the delivery runs on its
 * own — handed to `waitUntil` on Workers (the isolate stays alive for it after the response), tracked on
 * Node, where the graceful shutdown waits for it briefly (`settle`). A receiver that fails, hangs or is
 * misconfigured costs the visitor nothing: each attempt has its own timeout, failures are retried with
 * exponential backoff (1 s, 2 s, … by default), and the last failure is logged, not thrown.
 *
 * Bounded, because visitors trigger most events (each refusal, each rating): one queue, delivered a few at a
 * time (`concurrency`), holds at most `maxQueued` events — one more is dropped; each event type may start at
 * most `perTypePerMinute` deliveries a minute — more are dropped; both are counted (`stats()`, shown in the
 * console's settings). The target (a database read) is reused for `targetCacheMs`, so a burst of events
 * costs one read, and an admin's change applies within those few seconds.
 *
 * Events (protocol/webhooks.ts): `question.refused` and `answer.rated` come from the chat and feedback
 * routes; `sync.finished` from whatever runs a sync — call `emit('sync.finished', data)` with the run's
 * counts when it ends.
 *
 * @example
 * const webhooks = createWebhooks({ target: async () => ({ url, secret }), post: fetchPost });
 * webhooks.emit('sync.finished', { source, started_at, finished_at, added, updated, unchanged, removed, failed: [] });
 * await webhooks.settle(5_000); // before a CLI exits
 */
import type { WebhookDeliveries } from '../../protocol/api.ts';
import {
  WEBHOOK_SIGNATURE_HEADER,
  type WebhookEvent,
  type WebhookEventData,
  type WebhookEventType,
} from '../../protocol/webhooks.ts';
import { signatureHeader } from './sign.ts';
import { webhookUrlProblem } from './url.ts';

export interface WebhookTarget {
  url: string | null;
  secret: string | null;
}

/** One POST; resolves with the response's status. Throw `WebhookRefusal` for a failure that retrying cannot fix. */
export type WebhookPost = (
  url: string,
  init: { headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<number>;

/** A delivery that must not be retried (an address the server may not connect to). */
export class WebhookRefusal extends Error {
  override name = 'WebhookRefusal';
}

export interface WebhookOptions {
  /** Where to deliver and the signing secret, read per event (an admin's change applies to the next one). */
  target: () => Promise<WebhookTarget>;
  post: WebhookPost;
  /** Tries per event (default 3). */
  attempts?: number;
  /** One attempt's limit (default 5 s): a hanging receiver is given up on, then retried. */
  timeoutMs?: number;
  /** Wait before the second attempt, doubled before each next one (default 1 s). */
  backoffMs?: number;
  /** Plain http to loopback (KB_WEBHOOK_ALLOW_LOOPBACK). */
  allowLoopback?: boolean;
  log?: (message: string) => void;
  /** Events waiting or being delivered at most (default 100): one more is dropped and counted. */
  maxQueued?: number;
  /** Deliveries at once (default 4). */
  concurrency?: number;
  /** Deliveries one event type may start per minute (default 60): more are dropped and counted. */
  perTypePerMinute?: number;
  /** How long one read of the target is reused (default 5 s). */
  targetCacheMs?: number;
  /**
   * Claims an event id across every server on the database (`kb_claim_webhook_event`): an event whose id the
   * caller gave (a retried request repeats it, and two servers may both get the request) is sent only by the
   * server whose claim is first. A claim that fails (the database is unreachable) sends anyway: a duplicate,
   * which the receiver can drop by its KB-Delivery id, is better than an event lost.
   */
  claim?: (eventId: string) => Promise<boolean>;
  /** Tests: the clock (ms). */
  now?: () => number;
}

/** What the dispatcher did since it started (this process or isolate). */
export type WebhookStats = WebhookDeliveries;

export type WaitUntil = (task: Promise<unknown>) => void;

export interface Webhooks {
  /**
   * Delivers one event in the background. `data` may be a promise (computed off the request path too);
   * `id` is the event's id when the caller has a natural one (a retried request then repeats the same id).
   */
  emit<T extends WebhookEventType>(
    type: T,
    data: WebhookEventData[T] | Promise<WebhookEventData[T]>,
    options?: { id?: string; waitUntil?: WaitUntil },
  ): void;
  /** Deliveries still running. */
  readonly pending: number;
  /** Resolves true once no delivery is running, or false when `ms` passed first. */
  settle(ms: number): Promise<boolean>;
  stats(): WebhookStats;
  /** Drops the reused target read, so the next event reads it again (this server's console just changed it). */
  forgetTarget(): void;
}

export function createWebhooks(options: WebhookOptions): Webhooks {
  const { post, attempts = 3, timeoutMs = 5_000, backoffMs = 1_000, allowLoopback = false } = options;
  const { maxQueued = 100, concurrency = 4, perTypePerMinute = 60, targetCacheMs = 5_000 } = options;
  const now = options.now ?? Date.now;
  const log = options.log ?? ((message: string) => console.warn(`[kb-chat] webhook: ${message}`));
  const running = new Set<Promise<void>>();
  const queue: { run: () => Promise<void>; done: () => void }[] = [];
  let active = 0;
  const counts = { delivered: 0, failed: 0, dropped_queue_full: 0, dropped_rate_limited: 0 };
  const windows = new Map<string, { start: number; used: number }>();
  let cached: { at: number; value: Promise<WebhookTarget> } | null = null;

  const target = (): Promise<WebhookTarget> => {
    if (cached && now() - cached.at < targetCacheMs) return cached.value;
    const value = options.target();
    const entry = { at: now(), value };
    cached = entry;
    // A failed read is not kept: the next event reads again.
    value.catch(() => cached === entry && (cached = null));
    return value;
  };

  /** Whether this type may start one more delivery this minute. */
  const withinRate = (type: string): boolean => {
    const window = windows.get(type);
    if (!window || now() - window.start >= 60_000) {
      windows.set(type, { start: now(), used: 1 });
      return true;
    }
    if (window.used >= perTypePerMinute) return false;
    window.used++;
    return true;
  };

  const pump = () => {
    while (active < concurrency && queue.length > 0) {
      const job = queue.shift()!;
      active++;
      void job.run().finally(() => {
        active--;
        job.done();
        pump();
      });
    }
  };

  /** true: delivered; false: given up on (logged); null: webhooks are off. */
  async function deliver(event: Omit<WebhookEvent, 'data'>, data: unknown, named: boolean): Promise<boolean | null> {
    const { url, secret } = await target();
    if (!url) return null; // webhooks are off
    const problem = webhookUrlProblem(url, allowLoopback);
    if (problem) return fail(`${event.type} not sent: the URL ${problem}`);
    if (!secret)
      return fail(`${event.type} not sent: no signing secret for ${url} (KB_WEBHOOK_SECRET or the console's)`);
    // Only a caller-given id can repeat; a generated one is new by construction and needs no database write.
    if (named && options.claim) {
      const claimed = await options.claim(event.id).catch((error: unknown) => {
        log(`${event.type} ${event.id}: could not claim it (${(error as Error)?.message ?? error}); sending anyway`);
        return true;
      });
      if (!claimed) return null; // another server, or an earlier request, sends it
    }
    const body = JSON.stringify({ ...event, data: await data });
    for (let attempt = 1; ; attempt++) {
      let failure: string;
      try {
        const status = await post(url, {
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': 'kb-chat-webhook',
            'KB-Event': event.type,
            'KB-Delivery': event.id,
            // Signed per attempt: a retry carries a fresh timestamp, so it passes a receiver's freshness check.
            [WEBHOOK_SIGNATURE_HEADER]: await signatureHeader(secret, body),
          },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (status >= 200 && status < 300) return true;
        // 4xx is the receiver refusing this event (bad signature, unknown type): sending it again would not
        // change that — except 408 and 429, which ask for a later try.
        if (status >= 400 && status < 500 && status !== 408 && status !== 429)
          return fail(`${event.type} ${event.id} refused with ${status}`);
        failure = `status ${status}`;
      } catch (error) {
        if (error instanceof WebhookRefusal) return fail(`${event.type} not sent: ${error.message}`);
        failure =
          error instanceof Error && error.name === 'TimeoutError'
            ? `no response in ${timeoutMs} ms`
            : String((error as Error)?.message ?? error);
      }
      if (attempt >= attempts)
        return fail(`${event.type} ${event.id} failed after ${attempts} attempts (last: ${failure})`);
      await new Promise((resolve) => setTimeout(resolve, backoffMs * 2 ** (attempt - 1)));
    }
  }

  function fail(message: string): false {
    log(message);
    return false;
  }

  return {
    forgetTarget() {
      cached = null;
    },
    emit(type, data, { id, waitUntil } = {}) {
      // A rejected `data` is reported when its turn comes, not as an unhandled rejection meanwhile.
      if (data instanceof Promise) data.catch(() => {});
      if (!withinRate(type)) {
        if (counts.dropped_rate_limited++ % 100 === 0)
          log(`${type} dropped: more than ${perTypePerMinute} a minute (${counts.dropped_rate_limited} so far)`);
        return;
      }
      if (queue.length + active >= maxQueued) {
        if (counts.dropped_queue_full++ % 100 === 0)
          log(`${type} dropped: ${maxQueued} events already waiting (${counts.dropped_queue_full} so far)`);
        return;
      }
      const event = { id: id ?? `evt_${crypto.randomUUID()}`, type, created_at: new Date().toISOString() };
      const task = new Promise<void>((done) => {
        queue.push({
          run: () =>
            deliver(event, data, id !== undefined).then(
              (ok) => {
                if (ok === true) counts.delivered++;
                else if (ok === false) counts.failed++;
              },
              (error: unknown) => {
                counts.failed++;
                log(`${type} not sent: ${error instanceof Error ? error.message : String(error)}`);
              },
            ),
          done,
        });
      }).finally(() => running.delete(task));
      running.add(task);
      waitUntil?.(task);
      pump();
    },
    get pending() {
      return running.size;
    },
    stats: () => ({ queued: queue.length + active, ...counts }),
    async settle(ms) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
      const all = Promise.all([...running]).then(() => true);
      try {
        return await Promise.race([all, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The Fetch API's POST (Workers; tests): redirects are not followed — a webhook URL is where events go. */
export const fetchPost: WebhookPost = async (url, { headers, body, signal }) => {
  const res = await fetch(url, { method: 'POST', headers, body, signal, redirect: 'manual' });
  await res.body?.cancel().catch(() => {});
  return res.status;
};

/** The opaque visitor id the console shows (kb_visitor_id in SQL): `v-` and 10 hex digits of SHA-256(user id). */
export async function visitorId(userId: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(userId)));
  return `v-${Array.from(hash.slice(0, 5), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
