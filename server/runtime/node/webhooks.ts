/**
 * Webhooks on the Node server (and any Node process, e.g. a sync run): the URL and secret an admin set in
 * the console (`kb_webhook_target`, read with the server's own database connection), each falling back to
 * KB_WEBHOOK_URL / KB_WEBHOOK_SECRET, posted through the address guard (./webhook-post.ts). Deliveries run
 * in the background; call `settle(ms)` before the process exits.
 *
 * @example
 * const webhooks = nodeWebhooks(store, config.webhook);
 * webhooks.emit('sync.finished', { source, started_at, finished_at, added, updated, unchanged, removed, failed });
 * await webhooks.settle(10_000);
 */
import type { Config } from '../../config/index.ts';
import type { ChatStore } from '../../store/types.ts';
import { createWebhooks, type WebhookOptions, type Webhooks } from '../../webhooks/dispatcher.ts';
import { guardedWebhookPost } from './webhook-post.ts';

export function nodeWebhooks(
  store: Pick<ChatStore, 'webhookTarget'>,
  env: Config['webhook'],
  tuning: Partial<Pick<WebhookOptions, 'attempts' | 'timeoutMs' | 'backoffMs' | 'log'>> = {},
): Webhooks {
  return createWebhooks({
    target: async () => {
      // A database that cannot be read is not a reason to drop the event: the environment's webhook applies.
      const stored = (await store.webhookTarget?.().catch(() => null)) ?? null;
      return { url: stored?.url ?? env.url, secret: stored?.secret ?? env.secret };
    },
    post: guardedWebhookPost({ allowLoopback: env.allowLoopback }),
    allowLoopback: env.allowLoopback,
    ...tuning,
  });
}
