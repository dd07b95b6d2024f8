/**
 * Webhook delivery, off the request path: `emit` returns at once and never throws; the delivery runs on its
 * own — handed to `waitUntil` on Workers (the isolate stays alive for it after the response), tracked on
 * Node, where the graceful shutdown waits for it briefly (`settle`). A receiver that fails, hangs or is
 * misconfigured costs the visitor nothing: each attempt has its own timeout, failures are retried with
 * exponential backoff (1 s, 2 s, … by default), and the last failure is logged, not thrown.
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
}

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
}

export function createWebhooks(options: WebhookOptions): Webhooks {
  const { target, post, attempts = 3, timeoutMs = 5_000, backoffMs = 1_000, allowLoopback = false } = options;
  const log = options.log ?? ((message: string) => console.warn(`[kb-chat] webhook: ${message}`));
  const running = new Set<Promise<void>>();

  async function deliver(event: Omit<WebhookEvent, 'data'>, data: unknown): Promise<void> {
    const { url, secret } = await target();
    if (!url) return; // webhooks are off
    const problem = webhookUrlProblem(url, allowLoopback);
    if (problem) return log(`${event.type} not sent: the URL ${problem}`);
    if (!secret) return log(`${event.type} not sent: no signing secret (KB_WEBHOOK_SECRET or the console's)`);
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
        if (status >= 200 && status < 300) return;
        // 4xx is the receiver refusing this event (bad signature, unknown type): sending it again would not
        // change that — except 408 and 429, which ask for a later try.
        if (status >= 400 && status < 500 && status !== 408 && status !== 429)
          return log(`${event.type} ${event.id} refused with ${status}`);
        failure = `status ${status}`;
      } catch (error) {
        if (error instanceof WebhookRefusal) return log(`${event.type} not sent: ${error.message}`);
        failure =
          error instanceof Error && error.name === 'TimeoutError'
            ? `no response in ${timeoutMs} ms`
            : String((error as Error)?.message ?? error);
      }
      if (attempt >= attempts)
        return log(`${event.type} ${event.id} failed after ${attempts} attempts (last: ${failure})`);
      await new Promise((resolve) => setTimeout(resolve, backoffMs * 2 ** (attempt - 1)));
    }
  }

  return {
    emit(type, data, { id, waitUntil } = {}) {
      const event = { id: id ?? `evt_${crypto.randomUUID()}`, type, created_at: new Date().toISOString() };
      const task: Promise<void> = deliver(event, data)
        .catch((error: unknown) => log(`${type} not sent: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => running.delete(task));
      running.add(task);
      waitUntil?.(task);
    },
    get pending() {
      return running.size;
    },
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
