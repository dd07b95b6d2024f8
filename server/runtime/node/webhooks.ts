/**
 * Webhooks on the Node server (and any Node process, e.g. a sync run), posted through the address guard
 * (./webhook-post.ts). Deliveries run in the background; call `settle(ms)` before the process exits.
 *
 * Where and with what: the URL and secret are one pair. A URL an admin set in the console
 * (`kb_webhook_target`, read with the process's own database connection) is signed only with the secret
 * stored with it; KB_WEBHOOK_URL only with KB_WEBHOOK_SECRET. The environment's secret never signs a URL the
 * operator did not put beside it — not for a console session that changed the URL, nor for `npm run ingest`
 * with the service role reading a URL an admin stored.
 *
 * @example
 * const webhooks = nodeWebhooks(store, config.webhook);
 * webhooks.emit('sync.finished', { source, started_at, finished_at, added, updated, unchanged, removed, failed });
 * await webhooks.settle(10_000);
 */
import { WEBHOOK_SECRET_MIN_CHARS } from '../../../protocol/index.ts';
import type { Config } from '../../config/index.ts';
import type { ChatStore } from '../../store/types.ts';
import { createWebhooks, type WebhookOptions, type WebhookTarget, type Webhooks } from '../../webhooks/dispatcher.ts';
import { guardedWebhookPost } from './webhook-post.ts';

type Tuning = Omit<WebhookOptions, 'target' | 'post' | 'allowLoopback'>;

export function nodeWebhooks(
  store: Pick<ChatStore, 'webhookTarget' | 'claimWebhookEvent'>,
  env: Config['webhook'],
  tuning: Partial<Tuning> = {},
  post = guardedWebhookPost({ allowLoopback: env.allowLoopback }),
): Webhooks {
  return createWebhooks({
    target: async () => {
      // A database that cannot be read is not a reason to drop the event: the environment's webhook applies.
      const stored = (await store.webhookTarget?.().catch(() => null)) ?? null;
      return pairedTarget(stored, env);
    },
    post,
    allowLoopback: env.allowLoopback,
    // Every server on the database sends an event the others also got (a retried request's) only once.
    ...(store.claimWebhookEvent ? { claim: (id: string) => store.claimWebhookEvent!(id) } : {}),
    ...tuning,
  });
}

/** The stored URL with the stored secret, else the environment's pair; a short stored secret signs nothing. */
export function pairedTarget(stored: WebhookTarget | null, env: Config['webhook']): WebhookTarget {
  if (!stored?.url) return { url: env.url, secret: env.secret };
  // Stored before secrets had to be 32 characters (the database's check does not look at older rows).
  const secret = stored.secret && stored.secret.length >= WEBHOOK_SECRET_MIN_CHARS ? stored.secret : null;
  return { url: stored.url, secret };
}
