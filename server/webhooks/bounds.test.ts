/**
 * Bounded webhooks: one queue with a cap, a cap per event type and minute, the target read reused for a few
 * seconds, one connection pool for every delivery. Real receivers on 127.0.0.1 through the Node server's
 * guarded POST.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedWebhookPost } from '../runtime/node/webhook-post.ts';
import { startReceiver, type Receiver } from '../testing/webhook-receiver.ts';
import { createWebhooks, type WebhookOptions } from './dispatcher.ts';

const SECRET = 'whsec-bounds-0123456789abcdef0123456789';
const RATED = {
  message_id: crypto.randomUUID(),
  visitor: 'v-0123456789',
  rating: 1 as const,
  comment: null,
  rated_at: '2026-11-27T05:00:00.000Z',
};
const REFUSED = {
  message_id: crypto.randomUUID(),
  question_id: crypto.randomUUID(),
  session_id: crypto.randomUUID(),
  visitor: 'v-0123456789',
  question: 'Mars?',
  reason: 'no_evidence',
};
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
async function receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(respond);
  closers.push(() => r.close());
  return r;
}
function hooks(url: string, more: Partial<WebhookOptions> = {}) {
  const logs: string[] = [];
  const webhooks = createWebhooks({
    target: async () => ({ url, secret: SECRET }),
    post: guardedWebhookPost({ allowLoopback: true }),
    allowLoopback: true,
    log: (message) => logs.push(message),
    ...more,
  });
  return { webhooks, logs };
}

describe('bounded webhooks', () => {
  it('holds at most maxQueued events, delivers concurrency at a time, and counts what it drops', async () => {
    const hanging = await receiver(() => 'hang');
    const { webhooks, logs } = hooks(hanging.url, { maxQueued: 5, concurrency: 2, attempts: 1, timeoutMs: 300 });
    for (let i = 0; i < 20; i++) webhooks.emit('answer.rated', RATED);
    expect(webhooks.stats()).toMatchObject({ queued: 5, dropped_queue_full: 15 });
    expect(webhooks.pending).toBe(5);
    await hanging.received(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(hanging.deliveries).toHaveLength(2);
    expect(await webhooks.settle(5_000)).toBe(true);
    expect(hanging.deliveries).toHaveLength(5);
    expect(webhooks.stats()).toMatchObject({ queued: 0, failed: 5, delivered: 0, dropped_queue_full: 15 });
    expect(logs.filter((line) => line.includes('dropped'))).toHaveLength(1);
  });

  it('starts at most perTypePerMinute deliveries of one type a minute; other types have their own', async () => {
    const ok = await receiver();
    let clock = 1_000_000;
    const { webhooks } = hooks(ok.url, { perTypePerMinute: 3, now: () => clock });
    for (let i = 0; i < 5; i++) webhooks.emit('answer.rated', RATED);
    for (let i = 0; i < 2; i++) webhooks.emit('question.refused', REFUSED);
    expect(await webhooks.settle(5_000)).toBe(true);
    expect(ok.deliveries).toHaveLength(5);
    expect(webhooks.stats()).toMatchObject({ delivered: 5, dropped_rate_limited: 2 });
    clock += 60_000;
    webhooks.emit('answer.rated', RATED);
    expect(await webhooks.settle(5_000)).toBe(true);
    expect(webhooks.stats()).toMatchObject({ delivered: 6, dropped_rate_limited: 2 });
  });

  it('reads the target once for a burst, again after targetCacheMs, and again after a failed read', async () => {
    const ok = await receiver();
    let clock = 0;
    let reads = 0;
    let fail = false;
    const { webhooks } = hooks(ok.url, {
      now: () => clock,
      target: async () => {
        reads++;
        if (fail) throw new Error('database down');
        return { url: ok.url, secret: SECRET };
      },
    });
    for (let i = 0; i < 10; i++) webhooks.emit('answer.rated', RATED);
    expect(await webhooks.settle(5_000)).toBe(true);
    expect(reads).toBe(1);
    clock += 5_000;
    fail = true;
    webhooks.emit('answer.rated', RATED);
    expect(await webhooks.settle(5_000)).toBe(true);
    fail = false;
    webhooks.emit('answer.rated', RATED);
    expect(await webhooks.settle(5_000)).toBe(true);
    expect(reads).toBe(3);
    expect(ok.deliveries).toHaveLength(11);
  });

  it('reads the target again at once after forgetTarget (the console changed the webhook on this server)', async () => {
    const before = await receiver();
    const after = await receiver();
    let url = before.url;
    const { webhooks } = hooks(before.url, { now: () => 0, target: async () => ({ url, secret: SECRET }) });
    webhooks.emit('answer.rated', RATED);
    expect(await webhooks.settle(5_000)).toBe(true);
    url = after.url;
    webhooks.emit('answer.rated', RATED);
    expect(await webhooks.settle(5_000)).toBe(true);
    webhooks.forgetTarget();
    webhooks.emit('answer.rated', RATED);
    expect(await webhooks.settle(5_000)).toBe(true);
    // The clock never moves: without forgetTarget the third event would still go to the first URL.
    expect([before.deliveries.length, after.deliveries.length]).toEqual([2, 1]);
  });

  it('posts every delivery over one connection pool (keep-alive), not a new agent each', async () => {
    let connections = 0;
    const server: Server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve).closeAllConnections()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const { webhooks } = hooks(url, { concurrency: 1 });
    for (let i = 0; i < 5; i++) {
      webhooks.emit('answer.rated', RATED);
      expect(await webhooks.settle(5_000)).toBe(true);
    }
    expect(webhooks.stats().delivered).toBe(5);
    expect(connections).toBe(1);
  });
});
