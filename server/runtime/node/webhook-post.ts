/**
 * The Node server's webhook POST: through the crawler's guard (server/ingest/guarded-fetch.ts), so the
 * connection goes only to a public address that was checked when the name was resolved — a webhook URL set
 * by an admin (or a stolen admin session) cannot make the server post into its own network (loopback,
 * private ranges, the cloud metadata service). With KB_WEBHOOK_ALLOW_LOOPBACK, loopback is allowed too, for
 * a receiver on the same machine during development. Redirects are not followed.
 *
 * One guard, and so one connection pool, for every delivery of the process: a burst of events reuses
 * connections instead of opening an agent each. It lives as long as the process.
 */
import { fetch as undiciFetch } from 'undici';
import { publicAddressesOnly, type AddressPolicy } from '../../ingest/address-policy.ts';
import { createFetchGuard, CrawlRefusal, type FetchLike } from '../../ingest/guarded-fetch.ts';
import { isLoopbackHost } from '../../webhooks/url.ts';
import { WebhookRefusal, type WebhookPost } from '../../webhooks/dispatcher.ts';

export function guardedWebhookPost({ allowLoopback = false }: { allowLoopback?: boolean } = {}): WebhookPost {
  const policy: AddressPolicy = (address) => {
    if (allowLoopback && isLoopbackHost(address.includes(':') ? `[${address}]` : address)) return null;
    return publicAddressesOnly(address);
  };
  const post: FetchLike = (target, init) =>
    undiciFetch(target, { ...init, method: 'POST' } as never) as unknown as Promise<Response>;
  const guard = createFetchGuard({
    addressPolicy: policy,
    fetch: post,
    maxRedirects: 0,
    maxResponseBytes: 64 * 1024,
    // Response bodies are discarded unread; the crawl's total budget has no meaning for a process-long guard.
    maxTotalBytes: Number.MAX_SAFE_INTEGER,
  });
  return async (url, { headers, body, signal }) => {
    try {
      const res = await guard.fetch(url, { headers, signal, body });
      await res.discard();
      return res.status;
    } catch (error) {
      if (error instanceof CrawlRefusal) throw new WebhookRefusal(error.message);
      throw error;
    }
  };
}
