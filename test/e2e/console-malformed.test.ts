/**
 * A malformed stored answer in the console (Chromium, under the console's CSP): rows written before answers
 * were the server's alone may hold a string evidence, a string similarity, a confidence that is no tier, a
 * citation that is no object. The conversations page shows such a row with "—" where a value is unknown,
 * beside a well-formed one, and the overview still renders; nothing throws in the page.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { question } from '../../server/testing/api.ts';
import { basis } from '../../server/testing/vectors.ts';
import { startConsoleServer, type ConsoleServer } from './console-server.ts';

let server: ConsoleServer;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  server = await startConsoleServer();
  const { api } = server;
  await api.seedKb();
  const visitor = await api.signIn();
  await api.chat(visitor.token, question(basis(0), 'How do refunds work?'), {
    headers: { Accept: 'application/json' },
  });

  // What the old chat_finish_turn accepted from a visitor over PostgREST, inserted as the table owner.
  const db = api.store.db;
  const user = await api.store.createAnonymousUser();
  const session = crypto.randomUUID();
  await db.query(`insert into chat_sessions (id, user_id, title) values ($1, $2, 'Old')`, [session, user]);
  const asked = (
    await db.query<{ id: string }>(
      `insert into chat_messages (session_id, role, content) values ($1, 'user', 'A forged answer?') returning id`,
      [session],
    )
  ).rows[0]!.id;
  await db.query(
    `insert into chat_messages (session_id, role, content, citations, reply_to, meta) values ($1, 'assistant', 'Forged [1]', $2::jsonb, $3, $4::jsonb)`,
    [
      session,
      JSON.stringify([
        { n: '1', title: 7, page: 'two', url: 'https://evil.example/', similarity: 'high' },
        'not a citation',
      ]),
      asked,
      JSON.stringify({ kind: 'answer', evidence: 'high', confidence: 'very high', mode: 42, generated: { text: 7 } }),
    ],
  );

  page = await (await server.browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  await page.goto(await server.signInUrl());
  await page.locator('kb-admin-overview h2').waitFor();
});
afterAll(() => server?.close());

it('shows the malformed row with "—" for what is unknown, beside the well-formed one', async () => {
  await page.goto(`${server.baseUrl}/admin/#/conversations`);
  await expect.poll(() => page.locator('kb-admin-conversations article').count()).toBe(2);
  const forged = page.locator('kb-admin-conversations article', { hasText: 'A forged answer?' });
  const meta = await forged.locator('.meta').textContent();
  expect(meta).toContain('confidence —');
  expect(meta).toContain('mode —');
  const citations = await forged.locator('.citations li').allTextContents();
  expect(citations).toHaveLength(1);
  expect(citations[0]).toMatch(/—[\s\S]*evidence —/);
  expect(await forged.locator('.written').count()).toBe(0);
  const good = page.locator('kb-admin-conversations article', { hasText: 'How do refunds work?' });
  expect(await good.locator('.citations').textContent()).toMatch(/Billing[\s\S]*evidence \d\.\d{3}/);
  expect(pageErrors).toEqual([]);
});

it('renders the overview, its medians from the well-formed answer only', async () => {
  await page.goto(`${server.baseUrl}/admin/#/overview`);
  await page.locator('kb-admin-overview .card').first().waitFor();
  const cards = await page.locator('kb-admin-overview .card').allTextContents();
  expect(cards.find((c) => c.startsWith('Questions'))).toContain('2');
  expect(cards.find((c) => c.startsWith('Median confidence'))).toMatch(/high|medium|low/);
  expect(cards.find((c) => c.startsWith('Median confidence'))).toMatch(/evidence \d\.\d{3}/);
  expect(pageErrors).toEqual([]);
});
