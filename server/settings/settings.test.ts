/**
 * Runtime settings beyond the answer mode: the gate's thresholds, the greeting and the refusal
 * suggestions, through the admin API on Node (PGlite, the real migrations), and kb_set_settings' own
 * checks in SQL (bounds, admin only, a patch leaves other fields alone).
 */
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Refusal, Settings } from '../../protocol/index.ts';
import { StoreError } from '../store/types.ts';
import { createTestApi, question, TEST_SECRET, type TestApi } from '../testing/api.ts';
import { withSimilarity } from '../testing/vectors.ts';

let api: TestApi;
let admin: string;
beforeAll(async () => {
  api = await createTestApi();
  await api.seedKb();
  admin = await tokenFor({ role: 'admin' });
});
afterAll(() => api?.close());
beforeEach(async () => {
  await api.store.db.exec(
    'update kb_settings set answer_mode = null, evidence_threshold = null, lexical_threshold = null, hybrid_threshold = null, greeting = null, refusal_suggestions = null',
  );
});

async function tokenFor(appMetadata: Record<string, unknown>): Promise<string> {
  const userId = await api.store.createAnonymousUser();
  const now = Math.floor(Date.now() / 1000);
  return sign(
    { sub: userId, role: 'authenticated', aud: 'authenticated', app_metadata: appMetadata, iat: now, exp: now + 600 },
    TEST_SECRET,
    'HS256',
  );
}

const settings = (method: 'GET' | 'PUT', body?: unknown, token: string | null = admin, target = api.app) =>
  target.request('/api/admin/settings', {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** A question about refunds whose embedding has cosine 0.6 with the refunds chunk: answered at the default 0.35. */
const refunds = () => question(withSimilarity(0, 0.6), 'How do refunds work?');
const ask = async (target = api.app) => {
  const visitor = await api.signIn(target);
  const res = await api.chat(visitor.token, refunds(), { headers: { Accept: 'application/json' } }, target);
  return (await res.json()) as { type: 'answer' } | Refusal;
};

describe('GET/PUT /api/admin/settings: thresholds, greeting, refusal suggestions', () => {
  it('reports every setting with its source and the server default', async () => {
    const res = await settings('GET');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      evidence_threshold: 0.35,
      evidence_threshold_source: 'server',
      server_evidence_threshold: 0.35,
      lexical_threshold: 0.65,
      server_lexical_threshold: 0.65,
      hybrid_threshold: 0.37,
      server_hybrid_threshold: 0.37,
      greeting: null,
      greeting_source: 'server',
      refusal_suggestions: ['Contact support', 'Rephrase your question'],
      refusal_suggestions_source: 'server',
    } satisfies Partial<Settings>);
  });

  it("raises the threshold at runtime: a question answered before is refused, on every instance, with the admin's suggestions", async () => {
    const other = api.instance(); // another server over the same database: no restart, no cache
    expect((await ask()).type).toBe('answer');
    expect((await ask(other)).type).toBe('answer');

    const set = await settings('PUT', {
      evidence_threshold: 0.7,
      refusal_suggestions: [' Email billing@example.com ', 'Browse the FAQ'],
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({
      evidence_threshold: 0.7,
      evidence_threshold_source: 'admin',
      server_evidence_threshold: 0.35,
      refusal_suggestions: ['Email billing@example.com', 'Browse the FAQ'],
      refusal_suggestions_source: 'admin',
      answer_mode_source: 'server',
    });
    for (const target of [api.app, other]) {
      const refused = (await ask(target)) as Refusal;
      expect(refused).toMatchObject({
        type: 'refusal',
        reason: 'no_evidence',
        suggestions: ['Email billing@example.com', 'Browse the FAQ'],
      });
    }

    // "Try a question" decides with the same threshold as the chat.
    const tried = await api.app.request('/api/admin/try', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` },
      body: JSON.stringify({ message: 'How do refunds work?', embedding: withSimilarity(0, 0.6), mode: 'vector' }),
    });
    expect(await tried.json()).toMatchObject({
      decision: 'refuse',
      threshold: expect.closeTo(0.7, 5),
      refusal: { suggestions: ['Email billing@example.com', 'Browse the FAQ'] },
    });

    // null hands it back to the server; the suggestions stay (a patch changes only what it names).
    expect(await (await settings('PUT', { evidence_threshold: null })).json()).toMatchObject({
      evidence_threshold: 0.35,
      evidence_threshold_source: 'server',
      refusal_suggestions_source: 'admin',
    });
    expect((await ask()).type).toBe('answer');

    // [] offers no suggestions at all.
    await settings('PUT', { evidence_threshold: 0.9, refusal_suggestions: [] });
    expect(((await ask()) as Refusal).suggestions).toEqual([]);
  });

  // Each fused mode reads its own threshold: the admin's, when set, decides the chat's answer and the
  // console's "Try a question", in both directions. The question's evidence against the refunds chunk
  // (shown by /api/admin/try): coverage 0.6 (three of its five words are in the chunk, each in that chunk
  // alone; the two in no chunk weigh as much, migration 20261128030000), and with cosine 0.3 a hybrid mean of
  // 0.45. The thresholds are set on either side of it.
  it.each([
    {
      mode: 'lexical',
      field: 'lexical_threshold',
      server: 0.65,
      atServer: 'refusal',
      steps: [
        [0.55, 'answer'],
        [0.62, 'refusal'],
      ],
    },
    {
      mode: 'hybrid',
      field: 'hybrid_threshold',
      server: 0.37,
      atServer: 'answer',
      steps: [
        [0.46, 'refusal'],
        [0.42, 'answer'],
      ],
    },
  ] as const)(
    "the admin's $field changes answers in $mode mode, and no other setting does",
    async ({ mode, field, server, atServer, steps }) => {
      const target = api.instance({ retrieval: { mode } });
      const message = 'annual refunds charge quokka wombat';
      const embedding = withSimilarity(0, 0.3);
      const askIn = async () => {
        const visitor = await api.signIn(target);
        const res = await api.chat(
          visitor.token,
          question(embedding, message),
          { headers: { Accept: 'application/json' } },
          target,
        );
        return ((await res.json()) as { type: string }).type;
      };
      const tryIn = async () => {
        const res = await api.app.request('/api/admin/try', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` },
          body: JSON.stringify({ message, embedding, mode }),
        });
        return (await res.json()) as { decision: string; threshold: number };
      };
      const decision = (type: string) => (type === 'answer' ? 'answer' : 'refuse');
      expect(await askIn()).toBe(atServer);
      expect(await tryIn()).toEqual(
        expect.objectContaining({ decision: decision(atServer), threshold: expect.closeTo(server, 5) }),
      );

      // The other modes' thresholds, at their strictest, leave this mode alone.
      expect(
        (await settings('PUT', { evidence_threshold: 1, lexical_threshold: 1, hybrid_threshold: 1, [field]: null }))
          .status,
      ).toBe(200);
      expect(await askIn()).toBe(atServer);

      for (const [threshold, expected] of steps) {
        expect((await settings('PUT', { [field]: threshold })).status).toBe(200);
        expect(await askIn(), `${field} ${threshold}`).toBe(expected);
        expect(await tryIn()).toEqual(
          expect.objectContaining({ decision: decision(expected), threshold: expect.closeTo(threshold, 5) }),
        );
      }
    },
  );

  it('a settings read that fails never fails the question: the server defaults apply', async () => {
    await settings('PUT', { evidence_threshold: 0.9 });
    const broken = api.instance({
      store: Object.assign(Object.create(api.store), { getSettings: () => Promise.reject(new Error('down')) }),
    });
    expect((await ask(broken)).type).toBe('answer');
    expect((await ask()).type).toBe('refusal');
  });

  it('reads the settings once per question', async () => {
    let reads = 0;
    const counting = api.instance({
      store: Object.assign(Object.create(api.store), { getSettings: () => (reads++, api.store.getSettings()) }),
    });
    const visitor = await api.signIn(counting);
    reads = 0;
    await (await api.chat(visitor.token, refunds(), {}, counting)).text(); // streamed
    expect(reads).toBe(1);
    await settings('PUT', { evidence_threshold: 0.9 });
    await api.chat(visitor.token, refunds(), { headers: { Accept: 'application/json' } }, counting); // refused
    expect(reads).toBe(2);
  });

  it('/api/config carries the greeting only when an admin set one', async () => {
    const config = async () => (await (await api.app.request('/api/config')).json()) as { greeting?: string };
    expect(await config()).not.toHaveProperty('greeting');
    await settings('PUT', { greeting: 'Hi! Ask me about billing.' });
    expect((await config()).greeting).toBe('Hi! Ask me about billing.');
    expect(await (await settings('GET')).json()).toMatchObject({
      greeting: 'Hi! Ask me about billing.',
      greeting_source: 'admin',
    });
    await settings('PUT', { greeting: null });
    expect(await config()).not.toHaveProperty('greeting');
  });

  it('answers a bad body with a 400 naming the field, changing nothing; visitors get 403', async () => {
    const cases: [unknown, string][] = [
      [{ evidence_threshold: 1.5 }, 'evidence_threshold'],
      [{ hybrid_threshold: -0.1 }, 'hybrid_threshold'],
      [{ lexical_threshold: '0.5' }, 'lexical_threshold'],
      [{ greeting: 'x'.repeat(501) }, 'greeting'],
      [{ greeting: '   ' }, 'greeting'],
      [{ refusal_suggestions: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'refusal_suggestions'],
      [{ refusal_suggestions: ['fine', 'y'.repeat(121)] }, 'refusal_suggestions.1'],
      [{ refusal_suggestions: 'Contact us' }, 'refusal_suggestions'],
      [{ threshold: 0.5 }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await settings('PUT', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
        new RegExp(`^${field.replace('.', '\\.')}: `),
      );
    }
    const visitor = await api.signIn();
    expect((await settings('PUT', { greeting: 'pwned' }, visitor.token)).status).toBe(403);
    expect((await settings('PUT', { greeting: 'pwned' }, null)).status).toBe(401);
    expect(await (await settings('GET')).json()).toMatchObject({
      evidence_threshold_source: 'server',
      hybrid_threshold_source: 'server',
      lexical_threshold_source: 'server',
      greeting_source: 'server',
      refusal_suggestions_source: 'server',
    });
  });
});

describe('kb_set_settings in SQL', () => {
  const claims = async (role?: string) => ({
    sub: await api.store.createAnonymousUser(),
    role: 'authenticated',
    ...(role ? { app_metadata: { role } } : {}),
  });

  it('checks every bound itself (errcode 22023), whatever the API sent', async () => {
    const adminClaims = await claims('admin');
    for (const patch of [
      { evidence_threshold: 1.01 },
      { lexical_threshold: -1 },
      { hybrid_threshold: 'high' },
      { greeting: 'x'.repeat(501) },
      { greeting: ' ' },
      { greeting: 42 },
      { refusal_suggestions: ['a', 'b', 'c', 'd', 'e', 'f'] },
      { refusal_suggestions: [''] },
      { refusal_suggestions: ['z'.repeat(121)] },
      { refusal_suggestions: [1] },
      { refusal_suggestions: 'a' },
      { answer_mode: 'poetry' },
      { no_such_setting: 1 },
    ]) {
      const error = await api.store.setSettings(adminClaims, patch as never).catch((e: unknown) => e);
      expect(error, JSON.stringify(patch)).toBeInstanceOf(StoreError);
      expect((error as StoreError).kind, JSON.stringify(patch)).toBe('invalid');
    }
    // The table's CHECKs hold even for a direct write (the migration's backstop).
    await expect(api.store.db.exec('update kb_settings set evidence_threshold = 2')).rejects.toThrow(/check/);
    await expect(api.store.db.exec("update kb_settings set refusal_suggestions = array['']")).rejects.toThrow(/check/);
    await expect(api.store.db.exec("update kb_settings set evidence_threshold = 'NaN'")).rejects.toThrow(/check/);
  });

  it('a patch changes only the fields it names; null clears one', async () => {
    const adminClaims = await claims('admin');
    await api.store.setSettings(adminClaims, {
      greeting: 'Hello',
      hybrid_threshold: 0.5,
      refusal_suggestions: ['Ask sales'],
    });
    const after = await api.store.setSettings(adminClaims, { hybrid_threshold: null, answer_mode: 'generative' });
    expect(after).toMatchObject({
      greeting: 'Hello',
      hybrid_threshold: null,
      refusal_suggestions: ['Ask sales'],
      answer_mode: 'generative',
    });
    expect(await api.store.getSettings()).toMatchObject({
      greeting: 'Hello',
      hybrid_threshold: null,
      answer_mode: 'generative',
    });
  });

  it('refuses anyone but an admin (insufficient_privilege), changing nothing', async () => {
    for (const who of [await claims(), await claims('editor')]) {
      const error = await api.store.setSettings(who, { evidence_threshold: 0.99 }).catch((e: unknown) => e);
      expect((error as StoreError).kind).toBe('forbidden');
    }
    expect((await api.store.getSettings()).evidence_threshold).toBe(null);
  });
});
