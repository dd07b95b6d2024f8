/**
 * The conversation settings (20261126040000): the support address behind "Contact support" and the empty
 * panel's starter questions — bounds in the admin API (a 400 naming the field) and in SQL (kb_set_settings'
 * own checks, the table's CHECKs), and /api/config carrying them to every visitor.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ClientConfig, Settings } from '../../protocol/index.ts';
import { StoreError } from '../store/types.ts';
import { createTestApi, type TestApi, signInAdmin } from '../testing/api.ts';

let api: TestApi;
let admin: string;
beforeAll(async () => {
  api = await createTestApi();
  admin = (await signInAdmin(api.store)).token;
});
afterAll(() => api?.close());
beforeEach(async () => {
  await api.store.db.exec('update kb_settings set support_url = null, starters = null');
});

const put = (body: unknown) =>
  api.app.request('/api/admin/settings', {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` },
    body: JSON.stringify(body),
  });
const config = async () => (await (await api.app.request('/api/config')).json()) as ClientConfig;

describe('support_url and starters through /api/admin/settings and /api/config', () => {
  it('stores both, reports their source, and /api/config carries them only when set', async () => {
    expect(await config()).not.toHaveProperty('support_url');
    expect(await config()).not.toHaveProperty('starters');

    const res = await put({
      support_url: ' mailto:help@example.com ',
      starters: [' How do refunds work? ', 'What does the warranty cover?'],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      support_url: 'mailto:help@example.com',
      support_url_source: 'admin',
      starters: ['How do refunds work?', 'What does the warranty cover?'],
      starters_source: 'admin',
    } satisfies Partial<Settings>);
    expect(await config()).toMatchObject({
      support_url: 'mailto:help@example.com',
      starters: ['How do refunds work?', 'What does the warranty cover?'],
    });

    await put({ support_url: 'https://help.example.com/new?q={question}' });
    expect((await config()).support_url).toBe('https://help.example.com/new?q={question}');

    // null hands both back (no link, no starters); [] is "none" too.
    await put({ support_url: null, starters: [] });
    expect(await config()).not.toHaveProperty('support_url');
    expect(await config()).not.toHaveProperty('starters');
  });

  it('answers a value out of bounds with a 400 naming the field, changing nothing', async () => {
    const cases: [unknown, string][] = [
      [{ support_url: 'javascript:alert(1)' }, 'support_url'],
      [{ support_url: 'http://help.example.com' }, 'support_url'],
      [{ support_url: 'https://help.example.com/a b' }, 'support_url'],
      [{ support_url: `https://x.example/${'a'.repeat(2000)}` }, 'support_url'],
      [{ support_url: 42 }, 'support_url'],
      [{ starters: ['a', 'b', 'c', 'd', 'e'] }, 'starters'],
      [{ starters: ['fine', 'y'.repeat(121)] }, 'starters.1'],
      [{ starters: ['  '] }, 'starters.0'],
      [{ starters: 'How do refunds work?' }, 'starters'],
    ];
    for (const [body, field] of cases) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message, JSON.stringify(body)).toMatch(
        new RegExp(`^${field.replace('.', '\\.')}: `),
      );
    }
    expect(await api.store.getSettings()).toMatchObject({ support_url: null, starters: null });
  });
});

describe('kb_set_settings checks support_url and starters in SQL', () => {
  it('refuses every out-of-bounds value itself (errcode 22023), whatever the API sent', async () => {
    const claims = {
      sub: await api.store.createAnonymousUser(),
      role: 'authenticated',
      app_metadata: { role: 'admin' },
    };
    for (const patch of [
      { support_url: 'javascript:alert(1)' },
      { support_url: 'http://help.example.com' },
      { support_url: 'https://help.example.com/a\tb' },
      { support_url: `https://x.example/${'a'.repeat(2000)}` },
      { support_url: 7 },
      { starters: ['a', 'b', 'c', 'd', 'e'] },
      { starters: ['z'.repeat(121)] },
      { starters: [''] },
      { starters: [1] },
      { starters: 'a' },
    ]) {
      const error = await api.store.setSettings(claims, patch as never).catch((e: unknown) => e);
      expect(error, JSON.stringify(patch)).toBeInstanceOf(StoreError);
      expect((error as StoreError).kind, JSON.stringify(patch)).toBe('invalid');
    }
    // The table's CHECKs hold even for a direct write.
    await expect(api.store.db.exec("update kb_settings set support_url = 'javascript:alert(1)'")).rejects.toThrow(
      /check/,
    );
    await expect(api.store.db.exec("update kb_settings set starters = array['a','b','c','d','e']")).rejects.toThrow(
      /check/,
    );
    // A patch without them leaves them alone.
    await api.store.setSettings(claims, { support_url: 'mailto:help@example.com', starters: ['Hi?'] });
    expect(await api.store.setSettings(claims, { greeting: 'Hello' })).toMatchObject({
      support_url: 'mailto:help@example.com',
      starters: ['Hi?'],
    });
    await api.store.setSettings(claims, { greeting: null });
  });
});
