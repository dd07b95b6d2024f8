/**
 * Webhook delivery against a real receiver on 127.0.0.1, through the Node server's guarded POST: signed
 * bodies, retries with backoff, timeouts, nothing when unset, and no connection to loopback without the
 * development opt-in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../protocol/webhooks.ts';
import { guardedWebhookPost } from '../runtime/node/webhook-post.ts';
import { createWebhooks, type WebhookOptions } from './dispatcher.ts';
import { startReceiver, type Receiver } from '../testing/webhook-receiver.ts';
import { verifySignature } from './sign.ts';
import { webhookUrlProblem } from './url.ts';

const SECRET = 'whsec-test-0123456789abcdef0123456789abcdef';
const RATED = {
  message_id: crypto.randomUUID(),
  visitor: 'v-0123456789',
  rating: -1 as const,
  comment: 'Out of date',
  rated_at: '2026-11-26T05:00:00.000Z',
};
let receiver: Receiver | undefined;
afterEach(() => receiver?.close());

function webhooks(url: string | null, more: Partial<WebhookOptions> = {}) {
  const logs: string[] = [];
  const hooks = createWebhooks({
    target: async () => ({ url, secret: SECRET }),
    post: guardedWebhookPost({ allowLoopback: true }),
    allowLoopback: true,
    backoffMs: 50,
    log: (message) => logs.push(message),
    ...more,
  });
  return { hooks, logs };
}

describe('webhook delivery', () => {
  it('POSTs the event as JSON signed with HMAC-SHA256 over the timestamp and the raw body', async () => {
    receiver = await startReceiver();
    const { hooks, logs } = webhooks(receiver.url);
    hooks.emit('answer.rated', RATED);
    const [delivery] = await receiver.received(1);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['kb-event']).toBe('answer.rated');
    expect(await verifySignature(SECRET, delivery!.headers['kb-signature'] as string, delivery!.body)).toBe(true);
    // The signature covers the body: a changed body or another secret does not verify.
    expect(
      await verifySignature(SECRET, delivery!.headers['kb-signature'] as string, delivery!.body.replace('-1', '1')),
    ).toBe(false);
    expect(
      await verifySignature('another-secret-0123456789', delivery!.headers['kb-signature'] as string, delivery!.body),
    ).toBe(false);
    const event = JSON.parse(delivery!.body) as WebhookEvent<'answer.rated'>;
    expect(event).toMatchObject({ type: 'answer.rated', data: RATED, id: expect.stringMatching(/^evt_/) });
    expect(delivery!.headers['kb-delivery']).toBe(event.id);
    expect(await hooks.settle(1000)).toBe(true);
    expect(logs).toEqual([]);
  });

  it('retries a 500 with exponential backoff, the same event each time, and stops at the first success', async () => {
    receiver = await startReceiver((_, i) => (i < 2 ? 500 : 200));
    const { hooks, logs } = webhooks(receiver.url);
    hooks.emit('answer.rated', RATED);
    const tries = await receiver.received(3);
    expect(await hooks.settle(2000)).toBe(true);
    expect(receiver.deliveries).toHaveLength(3);
    expect(new Set(tries.map((t) => JSON.parse(t.body).id)).size).toBe(1);
    // 50 ms before the second try, 100 ms before the third (a little slack for timers).
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(45);
    expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(95);
    for (const t of tries)
      expect(await verifySignature(SECRET, t.headers['kb-signature'] as string, t.body)).toBe(true);
    expect(logs).toEqual([]);
  });

  it('gives up after three tries, and logs it', async () => {
    receiver = await startReceiver(() => 503);
    const { hooks, logs } = webhooks(receiver.url);
    hooks.emit('answer.rated', RATED);
    await receiver.received(3);
    expect(await hooks.settle(2000)).toBe(true);
    expect(receiver.deliveries).toHaveLength(3);
    expect(logs).toEqual([expect.stringMatching(/failed after 3 attempts \(last: status 503\)/)]);
  });

  it('gives up on a receiver that does not answer, per attempt, and tries again', async () => {
    receiver = await startReceiver(() => 'hang');
    const { hooks, logs } = webhooks(receiver.url, { timeoutMs: 100, attempts: 2 });
    hooks.emit('answer.rated', RATED);
    await receiver.received(2);
    expect(await hooks.settle(2000)).toBe(true);
    expect(logs).toEqual([expect.stringMatching(/failed after 2 attempts \(last: no response in 100 ms\)/)]);
  });

  it('does not retry a 4xx: the receiver refused the event itself', async () => {
    receiver = await startReceiver(() => 401);
    const { hooks, logs } = webhooks(receiver.url);
    hooks.emit('answer.rated', RATED);
    await receiver.received(1);
    expect(await hooks.settle(1000)).toBe(true);
    expect(receiver.deliveries).toHaveLength(1);
    expect(logs).toEqual([expect.stringMatching(/refused with 401/)]);
  });

  it('sends nothing when no webhook URL is set', async () => {
    receiver = await startReceiver();
    const { hooks, logs } = webhooks(null);
    hooks.emit('answer.rated', RATED);
    expect(await hooks.settle(1000)).toBe(true);
    expect(receiver.deliveries).toHaveLength(0);
    expect(logs).toEqual([]);
  });

  it('never connects to loopback (or any internal address) without the development opt-in', async () => {
    receiver = await startReceiver();
    const { hooks, logs } = webhooks(receiver.url.replace('http:', 'https:'), {
      post: guardedWebhookPost(),
      allowLoopback: false,
    });
    hooks.emit('answer.rated', RATED);
    expect(await hooks.settle(2000)).toBe(true);
    expect(receiver.deliveries).toHaveLength(0);
    expect(logs).toEqual([expect.stringMatching(/not sent: refused: 127\.0\.0\.1 is a loopback address/)]);
  });
});

describe('webhookUrlProblem', () => {
  it('accepts https, and plain http only to loopback with the opt-in', () => {
    expect(webhookUrlProblem('https://hooks.example.com/kb', false)).toBeNull();
    expect(webhookUrlProblem('http://127.0.0.1:9000/kb', true)).toBeNull();
    expect(webhookUrlProblem('http://[::1]:9000/kb', true)).toBeNull();
    expect(webhookUrlProblem('http://127.0.0.1:9000/kb', false)).toMatch(/KB_WEBHOOK_ALLOW_LOOPBACK/);
    expect(webhookUrlProblem('http://hooks.example.com/kb', true)).toMatch(/must be https/);
    expect(webhookUrlProblem('http://169.254.169.254/latest', true)).toMatch(/must be https/);
    expect(webhookUrlProblem('https://user:pw@hooks.example.com/', false)).toMatch(/user name or password/);
    expect(webhookUrlProblem('ftp://hooks.example.com/', false)).toMatch(/https/);
  });

  it('claims only events whose id the caller gave; a refused claim is not sent, a failed one is sent anyway', async () => {
    receiver = await startReceiver();
    const claimed: string[] = [];
    const { hooks, logs } = webhooks(receiver.url, {
      claim: async (id) => {
        claimed.push(id);
        if (id === 'evt_down') throw new Error('connection refused');
        return id !== 'evt_taken';
      },
    });
    hooks.emit('answer.rated', RATED, { id: 'evt_taken' });
    hooks.emit('answer.rated', RATED, { id: 'evt_mine' });
    hooks.emit('answer.rated', RATED, { id: 'evt_down' });
    hooks.emit('answer.rated', RATED);
    expect(await hooks.settle(5_000)).toBe(true);
    expect(claimed.sort()).toEqual(['evt_down', 'evt_mine', 'evt_taken']);
    const sent = receiver.deliveries.map((d) => String(d.headers['kb-delivery']));
    expect(sent.filter((id) => id === 'evt_mine' || id === 'evt_down').sort()).toEqual(['evt_down', 'evt_mine']);
    expect(sent.filter((id) => /^evt_[0-9a-f-]{36}$/.test(id))).toHaveLength(1);
    expect(sent).toHaveLength(3);
    expect(hooks.stats()).toMatchObject({ delivered: 3, failed: 0 });
    expect(logs).toEqual([
      expect.stringMatching(/evt_down: could not claim it \(connection refused\); sending anyway/),
    ]);
  });
});
