/**
 * 👎 answers in the console (Chromium, under the console's CSP): a visitor's answer rated not helpful with a
 * comment — stored by `chat_set_feedback` as that visitor, the function the visitor-side feedback API calls —
 * is found with the rating filter, shows its comment, and the overview counts it. axe reports 0 violations;
 * the view is saved as a screenshot (KB_SCREENSHOTS=1: docs/screens/).
 */
import AxeBuilder from '@axe-core/playwright';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { question } from '../../server/testing/api.ts';
import { basis } from '../../server/testing/vectors.ts';
import { startConsoleServer, type ConsoleServer } from './console-server.ts';
import { ROOT } from './server.ts';

const SHOTS = process.env.KB_SCREENSHOTS === '1' ? 'docs/screens' : 'test-results/screens';
let server: ConsoleServer;
let page: Page;

beforeAll(async () => {
  server = await startConsoleServer();
  const { api } = server;
  await api.seedKb();
  const rate = async (token: string, userId: string, body: object, rating: 1 | -1, comment: string | null) => {
    const res = await api.chat(token, body, { headers: { Accept: 'application/json' } });
    const { answer_message_id } = (await res.json()) as { answer_message_id: string };
    // As the visitor, through the SQL function the feedback API uses (RLS and its checks apply).
    await api.store.db.transaction(async (tx) => {
      await tx.query("select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)", [
        JSON.stringify({ sub: userId, role: 'authenticated' }),
      ]);
      await tx.query('select * from chat_set_feedback($1, $2, $3)', [answer_message_id, rating, comment]);
    });
  };
  const ann = await api.signIn();
  const bob = await api.signIn();
  await rate(
    ann.token,
    ann.userId,
    question(basis(0), 'How do refunds work for annual plans?'),
    -1,
    'It does not say how long a refund takes to reach my card.',
  );
  await rate(bob.token, bob.userId, question(basis(1), 'When are invoices sent?'), 1, null);
  await api.chat(bob.token, question(basis(300), 'Do you ship to Mars?'));
  page = await (await server.browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  page.on('pageerror', (error) => console.error('[page error]', error));
  await page.goto(await server.signInUrl());
  await page.locator('kb-admin-overview h2').waitFor();
});
afterAll(() => server?.close());

it('shows a 👎 answer with its comment, found with the rating filter', async () => {
  await page.goto(`${server.baseUrl}/admin/#/conversations`);
  await page.locator('kb-admin-conversations article').first().waitFor();
  expect(await page.locator('kb-admin-conversations article').count()).toBe(3);
  await page.locator('kb-admin-conversations select').first().selectOption('down');
  await expect.poll(() => page.locator('kb-admin-conversations article').count()).toBe(1);
  const item = page.locator('kb-admin-conversations article');
  expect(await item.locator('h3').textContent()).toBe('How do refunds work for annual plans?');
  expect(await item.locator('.comment').textContent()).toContain(
    'It does not say how long a refund takes to reach my card.',
  );
  expect(await item.locator('.badge').textContent()).toBe('not helpful');
  expect(await item.locator('.citations').textContent()).toContain('Billing');
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((v) => v.id)).toEqual([]);
  await page.locator('kb-admin-conversations select').first().selectOption('any');
  await expect.poll(() => page.locator('kb-admin-conversations article').count()).toBe(3);
  await page.screenshot({ path: join(ROOT, `${SHOTS}/conversations-rated.png`) });
});

it('counts the ratings in the overview', async () => {
  await page.goto(`${server.baseUrl}/admin/#/overview`);
  await page.locator('kb-admin-overview .card').first().waitFor();
  const cards = await page.locator('kb-admin-overview .card').allTextContents();
  expect(cards.find((c) => c.startsWith('Helpful / not helpful'))).toContain('1 / 1');
  expect(cards.find((c) => c.startsWith('Refused'))).toContain('1 (33 %)');
});
