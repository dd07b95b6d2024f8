/** The admin API: content gaps (refused questions, counted) and runtime settings; admins only (app_metadata.role = admin). */
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentGap } from '../store/types.ts';
import { createTestApi, question, TEST_SECRET, type TestApi } from '../testing/api.ts';
import { basis } from '../testing/vectors.ts';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
  await api.seedKb();
});
afterAll(() => api?.close());

async function tokenFor(appMetadata: Record<string, unknown>): Promise<string> {
  const userId = await api.store.createAnonymousUser();
  const now = Math.floor(Date.now() / 1000);
  return sign(
    { sub: userId, role: 'authenticated', aud: 'authenticated', app_metadata: appMetadata, iat: now, exp: now + 600 },
    TEST_SECRET,
    'HS256',
  );
}

describe('GET /api/admin/gaps', () => {
  it('lists refused questions with counts, most asked first; answered ones are not gaps', async () => {
    const visitor = await api.signIn();
    for (const message of ['Do you ship to Mars?', 'do you ship   to mars?', 'Is there a student discount?']) {
      await api.chat(visitor.token, question(basis(300), message));
    }
    await (await api.chat(visitor.token, question(basis(0), 'How do refunds work?'))).text();

    const res = await api.app.request('/api/admin/gaps', {
      headers: { Authorization: `Bearer ${await tokenFor({ role: 'admin' })}` },
    });
    expect(res.status).toBe(200);
    const { gaps } = (await res.json()) as { gaps: ContentGap[] };
    expect(gaps.map((g) => [g.question.toLowerCase().replace(/\s+/g, ' '), g.asked, g.reason])).toEqual([
      ['do you ship to mars?', 2, 'no_evidence'],
      ['is there a student discount?', 1, 'no_evidence'],
    ]);
  });

  it('refuses visitors without the admin claim (403) and without a token (401)', async () => {
    const visitor = await api.signIn();
    const res = await api.app.request('/api/admin/gaps', { headers: { Authorization: `Bearer ${visitor.token}` } });
    expect(res.status).toBe(403);
    const forged = await api.app.request('/api/admin/gaps', {
      headers: { Authorization: `Bearer ${await tokenFor({ role: 'editor' })}` },
    });
    expect(forged.status).toBe(403);
    expect((await api.app.request('/api/admin/gaps')).status).toBe(401);
  });
});

describe('GET/PUT /api/admin/settings (the answer mode)', () => {
  const call = async (method: 'GET' | 'PUT', token: string | null, body?: unknown, target = api.app) =>
    target.request('/api/admin/settings', {
      method,
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const configMode = async (target = api.app) =>
    ((await (await target.request('/api/config')).json()) as { answer_mode: string }).answer_mode;

  it('switches the mode at runtime for every server over the same database, and back to the server default', async () => {
    const admin = await tokenFor({ role: 'admin' });
    // Another server instance over the same database, whose KB_ANSWER_MODE says generative.
    const other = api.instance({ answerMode: 'generative' });
    expect(await (await call('GET', admin)).json()).toMatchObject({
      answer_mode: 'extractive',
      answer_mode_source: 'server',
      server_answer_mode: 'extractive',
    });
    expect(await configMode()).toBe('extractive');
    expect(await configMode(other)).toBe('generative');

    const set = await call('PUT', admin, { answer_mode: 'generative' });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ answer_mode: 'generative', answer_mode_source: 'admin' });
    expect(await configMode()).toBe('generative');

    await call('PUT', admin, { answer_mode: 'extractive' });
    expect(await configMode(other)).toBe('extractive'); // the admin's choice wins over the server's default

    expect(await (await call('PUT', admin, { answer_mode: null })).json()).toMatchObject({
      answer_mode: 'extractive',
      answer_mode_source: 'server',
    });
    expect(await configMode(other)).toBe('generative');
  });

  it('refuses visitors (403) and no token (401), and answers a bad body with a 400 naming the field, changing nothing', async () => {
    const visitor = await api.signIn();
    expect((await call('GET', visitor.token)).status).toBe(403);
    expect((await call('PUT', visitor.token, { answer_mode: 'generative' })).status).toBe(403);
    expect((await call('PUT', null, { answer_mode: 'generative' })).status).toBe(401);
    const admin = await tokenFor({ role: 'admin' });
    for (const [body, field] of [
      [{ answer_mode: 'poetry' }, 'answer_mode'],
      [{}, 'body'],
      [{ answer_mode: 1 }, 'answer_mode'],
    ] as const) {
      const res = await call('PUT', admin, body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(new RegExp(`^${field}: `));
    }
    expect(await (await call('GET', admin)).json()).toMatchObject({
      answer_mode: 'extractive',
      answer_mode_source: 'server',
    });
  });
});
