/** Content gaps: refused questions are counted; only admins (app_metadata.role = admin) may list them. */
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

    const res = await api.app.request('/api/admin/gaps', { headers: { Authorization: `Bearer ${await tokenFor({ role: 'admin' })}` } });
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
