/**
 * The webhook's URL and secret are one pair (Node, PGlite, real receivers on 127.0.0.1): a URL set in the
 * console is signed with its own secret — given, or generated and shown once — and never with
 * KB_WEBHOOK_SECRET; changing it needs a fresh sign-in and is recorded; the database refuses webhook keys
 * unless the deployment opted in, a URL without its secret, and a secret under 32 characters.
 */
import { sign } from 'hono/jwt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../protocol/index.ts';
import { nodeWebhooks } from '../runtime/node/webhooks.ts';
import { openPgliteStore } from '../store/pglite.ts';
import { migratedTemplate } from '../testing/pglite-template.ts';
import { createTestApi, question, TEST_SECRET, type TestApi } from '../testing/api.ts';
import { basis } from '../testing/vectors.ts';
import { startReceiver, type Receiver } from '../testing/webhook-receiver.ts';
import { verifySignature } from './sign.ts';

const ENV_SECRET = 'whsec-operator-environment-0123456789abcdef';
let api: TestApi;
const receivers: Receiver[] = [];
beforeAll(async () => {
  api = await createTestApi();
  await api.seedKb();
});
afterAll(() => api?.close());
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await api.store.db.exec('update kb_settings set webhook_url = null, webhook_secret = null');
});
const receiver = async () => {
  const r = await startReceiver();
  receivers.push(r);
  return r;
};

/** An admin's console token; `signedInAgo` seconds since the sign-in recorded in `amr` (null: none). */
async function adminToken(signedInAgo: number | null = 0): Promise<{ token: string; userId: string }> {
  const userId = await api.store.createAnonymousUser();
  const now = Math.floor(Date.now() / 1000);
  const amr = signedInAgo === null ? {} : { amr: [{ method: 'password', timestamp: now - signedInAgo }] };
  const claims = { sub: userId, role: 'authenticated', aud: 'authenticated', app_metadata: { role: 'admin' }, ...amr };
  return { token: await sign({ ...claims, iat: now, exp: now + 600 }, TEST_SECRET, 'HS256'), userId };
}
const put = (app: TestApi['app'], token: string, body: object) =>
  app.request('/api/admin/settings', {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
const refuse = (app: TestApi['app'], token: string) =>
  api.chat(token, question(basis(300), 'Do you ship to Mars?'), { headers: { Accept: 'application/json' } }, app);

describe('a URL set in the console', () => {
  it('is never signed with the environment secret: without its own, the server generates one and shows it once', async () => {
    const operator = await receiver();
    const other = await receiver();
    const webhooks = nodeWebhooks(
      api.store,
      { url: operator.url, secret: ENV_SECRET, allowLoopback: true },
      {
        targetCacheMs: 0,
      },
    );
    const app = api.instance({ webhooks, webhookDefaults: { url: operator.url, secretSet: true } });
    const admin = await adminToken();
    const res = await put(app, admin.token, { webhook_url: other.url });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Settings;
    const generated = body.webhook_secret_generated!;
    expect(generated.length).toBeGreaterThanOrEqual(32);
    expect(generated).not.toBe(ENV_SECRET);
    // Shown once: the next read does not carry it.
    const read = await app.request('/api/admin/settings', { headers: { Authorization: `Bearer ${admin.token}` } });
    expect(await read.text()).not.toContain(generated);

    const visitor = await api.signIn(app);
    await refuse(app, visitor.token);
    const [delivery] = await other.received(1);
    const signature = delivery!.headers['kb-signature'] as string;
    expect(await verifySignature(ENV_SECRET, signature, delivery!.body)).toBe(false);
    expect(await verifySignature(generated, signature, delivery!.body)).toBe(true);
    expect(operator.deliveries).toHaveLength(0);
  });

  it('a stored URL without its secret (an older row) gets nothing, and ingest never signs it with its own', async () => {
    const operator = await receiver();
    const stored = await receiver();
    await api.store.db.query('update kb_settings set webhook_url = $1, webhook_secret = null where id', [stored.url]);
    const webhooks = nodeWebhooks(api.store, { url: operator.url, secret: ENV_SECRET, allowLoopback: true });
    webhooks.emit('sync.finished', {
      source: 'docs',
      started_at: new Date().toISOString(),
      finished_at: new Date().toISOString(),
      added: 0,
      updated: 0,
      unchanged: 0,
      removed: 0,
      failed: [],
    });
    expect(await webhooks.settle(5_000)).toBe(true);
    expect(stored.deliveries).toHaveLength(0);
    expect(operator.deliveries).toHaveLength(0);
    expect(webhooks.stats()).toMatchObject({ delivered: 0, failed: 1 });
  });

  it('needs a fresh sign-in, not a kept or refreshed session, and is recorded: who, when, old → new host', async () => {
    const first = await receiver();
    const app = api.instance({ webhooks: nodeWebhooks(api.store, { url: null, secret: null, allowLoopback: true }) });
    for (const stale of [await adminToken(20 * 60), await adminToken(null)]) {
      const res = await put(app, stale.token, { webhook_url: first.url });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/sign in again/);
    }
    // Other settings do not ask for it.
    expect((await put(app, (await adminToken(20 * 60)).token, { greeting: 'Hello' })).status).toBe(200);
    await put(app, (await adminToken()).token, { greeting: null });

    const admin = await adminToken();
    expect((await put(app, admin.token, { webhook_url: first.url })).status).toBe(200);
    const second = 'https://hooks.example.com/kb?token=abc';
    const res = await put(app, admin.token, { webhook_url: second, webhook_secret: 'x'.repeat(40) });
    const change = ((await res.json()) as Settings).webhook_last_change!;
    expect(change).toMatchObject({
      changed_by: admin.userId,
      old_host: new URL(first.url).host,
      new_host: 'hooks.example.com',
    });
    expect(Math.abs(Date.parse(change.changed_at) - Date.now())).toBeLessThan(60_000);
    // The host only: the token in the query is not kept in the log.
    const log = await api.store.db.query<Record<string, unknown>>('select * from kb_webhook_changes');
    expect(JSON.stringify(log.rows)).not.toContain('token=abc');
  });

  it('refuses a 16-character secret (API and SQL), a secret without its URL, and a URL without its secret in SQL', async () => {
    const app = api.instance();
    const admin = await adminToken();
    const sixteen = '0123456789abcdef';
    const res = await put(app, admin.token, { webhook_url: 'https://hooks.example.com/', webhook_secret: sixteen });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^webhook_secret: .*32/);
    expect((await put(app, admin.token, { webhook_secret: 'y'.repeat(40) })).status).toBe(400);

    const claims = { sub: admin.userId, role: 'authenticated', app_metadata: { role: 'admin' } };
    const url = 'https://hooks.example.com/';
    await expect(api.store.setSettings(claims, { webhook_url: url, webhook_secret: sixteen })).rejects.toMatchObject({
      kind: 'invalid',
    });
    await expect(api.store.setSettings(claims, { webhook_url: url })).rejects.toMatchObject({ kind: 'invalid' });
    await expect(api.store.setSettings(claims, { webhook_secret: 'z'.repeat(40) })).rejects.toMatchObject({
      kind: 'invalid',
    });
    await expect(api.store.db.query("update kb_settings set webhook_secret = repeat('s', 16)")).rejects.toThrow(
      /kb_settings_webhook_secret/,
    );
  });
});

describe('kb_set_settings on a deployment that did not opt in (Supabase by default)', () => {
  it('refuses webhook keys to an admin JWT until the owner sets webhook_console', async () => {
    const store = await openPgliteStore(null, { loadDataDir: await migratedTemplate() });
    try {
      const userId = await store.createAnonymousUser();
      const claims = { sub: userId, role: 'authenticated', app_metadata: { role: 'admin' } };
      const patch = { webhook_url: 'https://evil.example/', webhook_secret: 'm'.repeat(40) };
      await expect(store.setSettings(claims, patch)).rejects.toMatchObject({ kind: 'forbidden' });
      // Other settings are the admin's as before.
      await expect(store.setSettings(claims, { greeting: 'Hi' })).resolves.toMatchObject({ greeting: 'Hi' });
      expect((await store.webhookTarget!()).url).toBeNull();
      await store.db.exec('update kb_settings set webhook_console = true');
      await store.setSettings(claims, patch);
      expect(await store.webhookTarget!()).toEqual({ url: patch.webhook_url, secret: patch.webhook_secret });
    } finally {
      await store.close();
    }
  });
});
