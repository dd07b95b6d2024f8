/**
 * The Node server's webhook POST: through the crawler's guard (server/ingest/guarded-fetch.ts), so the
 * connection goes only to a public address that was checked when the name was resolved — a webhook URL set
 * by an admin (or a stolen admin session) cannot make the server post into its own network (loopback,
 * private ranges, the cloud metadata service). With KB_WEBHOOK_ALLOW_LOOPBACK, loopback is allowed too, for
 * a receiver on the same machine during development. Redirects are not followed.
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
  return async (url, { headers, body, signal }) => {
    // One guard per delivery: the guard's fetch sends GETs, so the POST and its body are put in here.
    const post: FetchLike = (target, init) =>
      undiciFetch(target, { ...init, method: 'POST', body } as never) as unknown as Promise<Response>;
    const guard = createFetchGuard({
      addressPolicy: policy,
      fetch: post,
      maxRedirects: 0,
      maxResponseBytes: 64 * 1024,
    });
    try {
      const res = await guard.fetch(url, { headers, signal });
      await res.discard();
      return res.status;
    } catch (error) {
      if (error instanceof CrawlRefusal) throw new WebhookRefusal(error.message);
      throw error;
    } finally {
      await guard.close();
    }
  };
}
