/**
 * Webhooks from the running app (Node, PGlite): a refused question and a rating reach a receiver on
 * 127.0.0.1, signed; a failing or hanging receiver does not hold up the visitor's answer; nothing is sent
 * without a URL; an admin sets the webhook in the console and its secret never comes back in a response.
 */
import { sign } from 'hono/jwt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Refusal } from '../../protocol/index.ts';
import type { WebhookEvent } from '../../protocol/webhooks.ts';
import { nodeWebhooks } from '../runtime/node/webhooks.ts';
import { createTestApi, question, TEST_SECRET, type TestApi } from '../testing/api.ts';
import { basis } from '../testing/vectors.ts';
import { startReceiver, type Receiver } from '../testing/webhook-receiver.ts';
import { verifySignature } from './sign.ts';

const SECRET = 'whsec-app-test-0123456789abcdef0123456789';
let api: TestApi;
let receiver: Receiver | undefined;
beforeAll(async () => {
  api = await createTestApi();
  await api.seedKb();
});
afterAll(() => api?.close());
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  await api.store.db.exec('update kb_settings set webhook_url = null, webhook_secret = null');
});

const env = (url: string | null, secret: string | null = SECRET) => ({ url, secret, allowLoopback: true });
const refusedQuestion = () => question(basis(300), 'Do you ship to Mars?');
const asJson = { headers: { Accept: 'application/json' } };

async function tokenFor(appMetadata: Record<string, unknown>): Promise<string> {
  const userId = await api.store.createAnonymousUser();
  const now = Math.floor(Date.now() / 1000);
  return sign(
    {
      sub: userId,
      role: 'authenticated',
      aud: 'authenticated',
      app_metadata: appMetadata,
      amr: [{ method: 'link', timestamp: now }],
      iat: now,
      exp: now + 600,
    },
    TEST_SECRET,
    'HS256',
  );
}

describe('events from the app', () => {
  it('question.refused: the refused question, signed, once the refusal is stored', async () => {
    receiver = await startReceiver();
    const webhooks = nodeWebhooks(api.store, env(receiver.url), { backoffMs: 20 });
    const app = api.instance({ webhooks });
    const visitor = await api.signIn(app);
    const asked = refusedQuestion();
    const refusal = (await (await api.chat(visitor.token, asked, asJson, app)).json()) as Refusal;
    expect(refusal.type).toBe('refusal');
    const [delivery] = await receiver.received(1);
    expect(await verifySignature(SECRET, delivery!.headers['kb-signature'] as string, delivery!.body)).toBe(true);
    const event = JSON.parse(delivery!.body) as WebhookEvent<'question.refused'>;
    expect(event).toMatchObject({
      id: `evt_${refusal.message_id}`,
      type: 'question.refused',
      data: {
        message_id: refusal.message_id,
        question_id: asked.message_id,
        question: 'Do you ship to Mars?',
        reason: 'no_evidence',
        visitor: expect.stringMatching(/^v-[0-9a-f]{10}$/),
      },
    });
    // The visitor id is the console's (kb_visitor_id): a receiver can match events to the console's rows.
    const [{ v }] = (await api.store.db.query<{ v: string }>('select kb_visitor_id($1) as v', [visitor.userId]))
      .rows as [{ v: string }];
    expect(event.data.visitor).toBe(v);
  });

  it('answer.rated: 👎 with its comment', async () => {
    receiver = await startReceiver();
    const app = api.instance({ webhooks: nodeWebhooks(api.store, env(receiver.url)) });
    const visitor = await api.signIn(app);
    const refusal = (await (await api.chat(visitor.token, refusedQuestion(), asJson, app)).json()) as Refusal;
    await receiver.received(1);
    const rated = await app.request('/api/feedback', {
      method: 'POST',
      headers: { Authorization: `Bearer ${visitor.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message_id: refusal.message_id, rating: -1, comment: 'We do ship to Mars, see the FAQ' }),
    });
    expect(rated.status).toBe(200);
    const [, delivery] = await receiver.received(2);
    const event = JSON.parse(delivery!.body) as WebhookEvent<'answer.rated'>;
    expect(event).toMatchObject({
      type: 'answer.rated',
      data: { message_id: refusal.message_id, rating: -1, comment: 'We do ship to Mars, see the FAQ' },
    });
    expect(await verifySignature(SECRET, delivery!.headers['kb-signature'] as string, delivery!.body)).toBe(true);
  });

  it("hands each delivery to the runtime's waitUntil when there is one (Workers), which ends once delivered", async () => {
    receiver = await startReceiver();
    const app = api.instance({ webhooks: nodeWebhooks(api.store, env(receiver.url)) });
    const visitor = await api.signIn(app);
    const kept: Promise<unknown>[] = [];
    const executionCtx = {
      waitUntil: (task: Promise<unknown>) => void kept.push(task),
      passThroughOnException: () => {},
      props: {},
    };
    const res = await app.request(
      '/api/chat',
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${visitor.token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: JSON.stringify(refusedQuestion()),
      },
      undefined,
      executionCtx,
    );
    expect(((await res.json()) as Refusal).type).toBe('refusal');
    expect(kept).toHaveLength(1);
    await Promise.all(kept);
    expect(receiver.deliveries).toHaveLength(1);
  });

  it('a hanging receiver does not hold up the answer: it is sent while the delivery still waits', async () => {
    receiver = await startReceiver(() => 'hang');
    // A delivery limit no test reaches: the delivery can only end when the receiver answers, which it never does.
    const webhooks = nodeWebhooks(api.store, env(receiver.url), { timeoutMs: 600_000, attempts: 1 });
    const app = api.instance({ webhooks });
    const visitor = await api.signIn(app);
    const res = await api.chat(visitor.token, refusedQuestion(), asJson, app);
    expect(((await res.json()) as Refusal).type).toBe('refusal');
    await receiver.received(1);
    // The receiver has the request and has not answered; the visitor has the refusal all the same.
    expect(webhooks.pending).toBe(1);
  });

  it('a failing receiver does not break the answer or the rating', async () => {
    receiver = await startReceiver(() => 500);
    const app = api.instance({
      webhooks: nodeWebhooks(api.store, env(receiver.url), { backoffMs: 10, log: () => {} }),
    });
    const visitor = await api.signIn(app);
    const res = await api.chat(visitor.token, refusedQuestion(), asJson, app);
    expect(res.status).toBe(200);
    const refusal = (await res.json()) as Refusal;
    const rated = await app.request('/api/feedback', {
      method: 'POST',
      headers: { Authorization: `Bearer ${visitor.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message_id: refusal.message_id, rating: 1 }),
    });
    expect(rated.status).toBe(200);
    await receiver.received(6); // three tries of each event
  });

  it('sends nothing when no webhook is set, and nothing more once an admin clears it', async () => {
    receiver = await startReceiver();
    // Each event reads the target afresh (by default a read is reused for 5 s; its own test is in dispatcher.test.ts).
    const webhooks = nodeWebhooks(api.store, env(null, null), { targetCacheMs: 0 });
    const app = api.instance({ webhooks });
    const visitor = await api.signIn(app);
    const ask = async () =>
      expect(((await (await api.chat(visitor.token, refusedQuestion(), asJson, app)).json()) as Refusal).type).toBe(
        'refusal',
      );
    await ask();
    expect(await webhooks.settle(2_000)).toBe(true);
    expect(receiver.deliveries).toHaveLength(0);

    const admin = await tokenFor({ role: 'admin' });
    const put = (body: object) =>
      app.request('/api/admin/settings', {
        method: 'PUT',
        headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await put({ webhook_url: receiver.url, webhook_secret: SECRET })).status).toBe(200);
    await ask();
    await receiver.received(1);
    expect((await put({ webhook_url: null })).status).toBe(200);
    await ask();
    expect(await webhooks.settle(2_000)).toBe(true);
    expect(receiver.deliveries).toHaveLength(1);
  });
});

describe('the webhook as a console setting', () => {
  const settings = (method: 'GET' | 'PUT', token: string, body?: unknown, app = api.app) =>
    app.request('/api/admin/settings', {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('is used for the next event, signed with the secret the admin set, which no response contains', async () => {
    receiver = await startReceiver();
    const consoleSecret = 'console-secret-9f8e7d6c5b4a-0123456789';
    const webhooks = nodeWebhooks(api.store, env(null, null));
    const app = api.instance({ webhooks, webhookDefaults: { url: null, secretSet: false } });
    const admin = await tokenFor({ role: 'admin' });
    const responses: string[] = [];
    const set = await settings('PUT', admin, { webhook_url: receiver.url, webhook_secret: consoleSecret }, app);
    expect(set.status).toBe(200);
    responses.push(await set.clone().text());
    expect(await set.json()).toMatchObject({
      webhook_url: receiver.url,
      webhook_url_source: 'admin',
      webhook_secret_set: true,
      webhook_secret_source: 'admin',
    });

    const visitor = await api.signIn(app);
    await api.chat(visitor.token, refusedQuestion(), asJson, app);
    const [delivery] = await receiver.received(1);
    expect(await verifySignature(consoleSecret, delivery!.headers['kb-signature'] as string, delivery!.body)).toBe(
      true,
    );

    // Every admin read, the public config and the settings function anyone may call: no secret anywhere.
    for (const path of [
      '/api/admin/settings',
      '/api/admin/me',
      '/api/admin/conversations',
      '/api/admin/gaps?status=all',
      '/api/admin/export/conversations?format=json',
      '/api/config',
    ]) {
      responses.push(await (await app.request(path, { headers: { Authorization: `Bearer ${admin}` } })).text());
    }
    responses.push(JSON.stringify(await api.store.getSettings()));
    for (const text of responses) expect(text).not.toContain(consoleSecret);
    expect(responses.join('')).toContain('webhook_secret_set');

    // Cleared: back to the environment (none here).
    expect(await (await settings('PUT', admin, { webhook_url: null, webhook_secret: null }, app)).json()).toMatchObject(
      {
        webhook_url: null,
        webhook_url_source: 'server',
        webhook_secret_set: false,
      },
    );
  });

  it("refuses a URL into the server's network, a short secret, and a visitor", async () => {
    const admin = await tokenFor({ role: 'admin' });
    for (const [body, field] of [
      [{ webhook_url: 'http://10.0.0.5/hook' }, 'webhook_url'],
      [{ webhook_url: 'http://169.254.169.254/latest/meta-data' }, 'webhook_url'],
      [{ webhook_url: 'https://user:pw@hooks.example.com/' }, 'webhook_url'],
      [{ webhook_secret: 'short' }, 'webhook_secret'],
    ] as const) {
      const res = await settings('PUT', admin, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(new RegExp(`^${field}: `));
    }
    const visitor = await api.signIn();
    expect((await settings('PUT', visitor.token, { webhook_url: 'https://hooks.example.com/' })).status).toBe(403);
    // And in SQL, whatever calls it: the check is kb_set_settings' own.
    const claims = { sub: crypto.randomUUID(), role: 'authenticated', app_metadata: { role: 'admin' } };
    await expect(api.store.setSettings(claims, { webhook_url: 'http://10.0.0.5/hook' })).rejects.toMatchObject({
      kind: 'invalid',
    });
    await expect(api.store.setSettings(claims, { webhook_secret: 'short' })).rejects.toMatchObject({ kind: 'invalid' });
  });
});
