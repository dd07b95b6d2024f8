/**
 * Data out on the production path: the Worker bundle in workerd, supabase-js to the PostgREST-compatible
 * server over PGlite. Webhook events leave the Worker after its response (kept alive with waitUntil),
 * signed with KB_WEBHOOK_SECRET, to a receiver on 127.0.0.1; the console's export pages through the
 * admin_export_* functions over PostgREST and streams CSV and JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminSession, AnonymousAuth, Refusal, Settings } from '../../protocol/index.ts';
import type { ConversationRecord } from '../../protocol/export.ts';
import type { WebhookEvent } from '../../protocol/webhooks.ts';
import { seedKb } from '../../server/testing/api.ts';
import { basis } from '../../server/testing/vectors.ts';
import { startReceiver, type Receiver } from '../../server/testing/webhook-receiver.ts';
import { verifySignature } from '../../server/webhooks/sign.ts';
import { startWorker, type WorkerHarness } from './harness.ts';

const WEBHOOK_SECRET = 'whsec-workerd-0123456789abcdef0123456789';
let harness: WorkerHarness;
let receiver: Receiver;
let admin: string;

beforeAll(async () => {
  receiver = await startReceiver();
  harness = await startWorker(
    // http to the test's own receiver needs the development opt-in, as it would on a developer's machine.
    { KB_WEBHOOK_URL: receiver.url, KB_WEBHOOK_SECRET: WEBHOOK_SECRET, KB_WEBHOOK_ALLOW_LOOPBACK: '1' },
    {
      passwordUsers: [
        { email: 'owner@example.com', password: 'correct horse', appMetadata: { provider: 'email', role: 'admin' } },
      ],
    },
  );
  await seedKb(harness.pg);
  admin = (
    (await (
      await post('/api/admin/password', null, { email: 'owner@example.com', password: 'correct horse' })
    ).json()) as AdminSession
  ).access_token;
});
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
});

const post = (path: string, token: string | null, body: unknown, headers: Record<string, string> = {}) =>
  harness.worker(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
const get = (path: string, token: string) => harness.worker(path, { headers: { Authorization: `Bearer ${token}` } });

describe('webhooks from the Worker', () => {
  it('sends question.refused and answer.rated after the response, signed with KB_WEBHOOK_SECRET', async () => {
    const visitor = ((await (await harness.worker('/api/auth/anonymous', { method: 'POST' })).json()) as AnonymousAuth)
      .access_token;
    const asked = { embedding: basis(300), message: 'Do you ship to Mars?', message_id: crypto.randomUUID() };
    const refusal = (await (await post('/api/chat', visitor, asked, { Accept: 'application/json' })).json()) as Refusal;
    expect(refusal.type).toBe('refusal');
    expect(
      (
        await post('/api/feedback', visitor, {
          message_id: refusal.message_id,
          rating: -1,
          comment: 'Please add shipping',
        })
      ).status,
    ).toBe(200);

    const deliveries = await receiver.received(2);
    const events = deliveries.map((d) => JSON.parse(d.body) as WebhookEvent);
    expect(events.map((e) => e.type).sort()).toEqual(['answer.rated', 'question.refused']);
    for (const d of deliveries)
      expect(await verifySignature(WEBHOOK_SECRET, d.headers['kb-signature'] as string, d.body)).toBe(true);
    expect(events.find((e) => e.type === 'question.refused')!.data).toMatchObject({
      message_id: refusal.message_id,
      question: 'Do you ship to Mars?',
      reason: 'no_evidence',
    });
    expect(events.find((e) => e.type === 'answer.rated')!.data).toMatchObject({
      message_id: refusal.message_id,
      rating: -1,
      comment: 'Please add shipping',
    });
  });

  it("shows the environment's webhook in the console, read-only, and never its secret", async () => {
    const res = await get('/api/admin/settings', admin);
    const text = await res.text();
    expect(text).not.toContain(WEBHOOK_SECRET);
    expect(JSON.parse(text)).toMatchObject({
      webhook_url: receiver.url,
      webhook_url_source: 'server',
      webhook_secret_set: true,
      webhook_editable: false,
    } satisfies Partial<Settings>);
    // Setting it here would store a webhook this Worker never reads: refused, naming the field.
    const put = await harness.worker('/api/admin/settings', {
      method: 'PUT',
      headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ webhook_url: 'https://hooks.example.com/kb' }),
    });
    expect(put.status).toBe(400);
    expect(((await put.json()) as { error: { message: string } }).error.message).toMatch(
      /^webhook_url: this server reads the webhook only from KB_WEBHOOK_URL/,
    );
  });
});

describe('export through the Worker', () => {
  it('pages through the conversations with supabase-js and streams them as CSV and JSON', async () => {
    const [{ id: userId }] = (
      await harness.pg.db.query<{ id: string }>(`insert into auth.users (is_anonymous) values (true) returning id`)
    ).rows as [{ id: string }];
    const [{ id: session }] = (
      await harness.pg.db.query<{ id: string }>(
        `insert into chat_sessions (user_id, title) values ($1, 'Bulk') returning id`,
        [userId],
      )
    ).rows as [{ id: string }];
    await harness.pg.db.query(
      `with q as (
         insert into chat_messages (session_id, role, content, created_at)
         select $1, 'user', '=Bulk question ' || i, timestamptz '2026-03-01T00:00:00Z' + i * interval '1001 microseconds'
         from generate_series(0, 1199) i returning id, content, created_at)
       insert into chat_messages (session_id, role, content, reply_to, citations, meta, created_at)
       select $1, 'assistant', 'Answer', q.id, '[]'::jsonb, '{"kind": "answer"}'::jsonb, q.created_at from q`,
      [session],
    );
    harness.supabase.log.length = 0;
    const range = 'from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z';
    const csv = await get(`/api/admin/export/conversations?format=csv&${range}`, admin);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('Content-Disposition')).toMatch(/^attachment; filename="kb-chat-conversations-/);
    expect(csv.headers.get('Cache-Control')).toBe('no-store');
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(1201);
    expect(lines[1]).toContain(`'=Bulk question 0`);
    // 1,200 rows in pages of 500: three calls, each after the previous page's cursor.
    const calls = harness.supabase.log.filter((e) => e.path === '/rest/v1/rpc/admin_export_conversations');
    expect(calls).toHaveLength(3);
    expect(calls.every((c) => c.status === 200 && c.role === 'authenticated')).toBe(true);

    const list = (await (
      await get(`/api/admin/export/conversations?format=json&${range}`, admin)
    ).json()) as ConversationRecord[];
    expect(list).toHaveLength(1200);
    expect(new Set(list.map((c) => c.question_id)).size).toBe(1200);
  });

  it('refuses a visitor', async () => {
    const visitor = ((await (await harness.worker('/api/auth/anonymous', { method: 'POST' })).json()) as AnonymousAuth)
      .access_token;
    expect((await get('/api/admin/export/gaps?format=csv', visitor)).status).toBe(403);
  });
});
