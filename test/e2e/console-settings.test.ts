/**
 * The console's settings view in Chromium (the built page, under its CSP) over the real API: every setting
 * with its value, source and the server's default; values out of bounds are refused in the form with a
 * message on the field and nothing sent; saved values change what a visitor gets at once — a question
 * answered before is refused with the owner's suggestions, and the widget's config carries the greeting.
 * axe reports 0 violations, messages shown or not, at 1280 and 390 px.
 */
import AxeBuilder from '@axe-core/playwright';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Refusal, Settings } from '../../protocol/index.ts';
import { question } from '../../server/testing/api.ts';
import { withSimilarity } from '../../server/testing/vectors.ts';
import { startConsoleServer, type ConsoleServer } from './console-server.ts';
import { ROOT } from './server.ts';

const SHOTS = process.env.KB_SCREENSHOTS === '1' ? 'docs/screens' : 'test-results/screens';
let server: ConsoleServer;
let page: Page;

beforeAll(async () => {
  server = await startConsoleServer();
  await server.api.seedKb();
  page = await (await server.browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
  page.on('pageerror', (error) => console.error('[page error]', error));
  await page.goto(await server.signInUrl());
  await page.locator('kb-admin-overview h2').waitFor();
  await page.goto(`${server.baseUrl}/admin/#/settings`);
  await page.locator('kb-admin-settings form').waitFor();
});
afterAll(() => server?.close());

async function axe(target: Page = page): Promise<void> {
  const { violations } = await new AxeBuilder({ page: target }).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** A visitor's question with cosine 0.6 to the refunds passage (the test API is in vector mode, threshold 0.35). */
async function visitorAsks(): Promise<{ type: 'answer' } | Refusal> {
  const visitor = await server.api.signIn();
  const res = await server.api.chat(visitor.token, question(withSimilarity(0, 0.6), 'How do refunds work?'), {
    headers: { Accept: 'application/json' },
  });
  return (await res.json()) as { type: 'answer' } | Refusal;
}
const stored = async () => (await server.api.store.getSettings()) as unknown as Record<keyof Settings, unknown>;
const view = () => page.locator('kb-admin-settings');

it('shows every setting with its value in effect, its source and the server default', async () => {
  await expect
    .poll(() => view().locator('#evidence_threshold-about').textContent())
    .toContain('In effect: 0.35 (server default); server default 0.35 (CHAT_EVIDENCE_THRESHOLD)');
  expect(await view().locator('#hybrid_threshold-about').textContent()).toContain(
    'server default 0.37 (CHAT_HYBRID_THRESHOLD)',
  );
  expect(await view().locator('#lexical_threshold-about').textContent()).toContain(
    'server default 0.65 (CHAT_LEXICAL_THRESHOLD)',
  );
  expect(await view().locator('#greeting-about').textContent()).toContain('In effect: none (server default)');
  expect(await view().locator('#refusal_suggestions-about').textContent()).toContain(
    'Contact support, Rephrase your question (server default)',
  );
  expect(await view().locator('#refusal_suggestions').isDisabled()).toBe(true);
  await axe();
});

it('refuses values out of bounds in the form, on the field, and sends nothing', async () => {
  const before = await stored();
  await view().getByLabel('Vector mode').fill('1.5');
  await view().locator('#greeting').fill('x'.repeat(501));
  await view().getByRole('checkbox', { name: "The server's suggestions:" }).uncheck();
  await view().locator('#refusal_suggestions').fill(['a', 'b', 'c', 'd', 'e', 'f'].join('\n'));
  await view().getByRole('button', { name: 'Save' }).click();

  await expect.poll(() => view().locator('#evidence_threshold-error').textContent()).toContain('from 0 to 1');
  expect(await view().locator('#greeting-error').textContent()).toContain('At most 500 characters (now 501)');
  expect(await view().locator('#refusal_suggestions-error').textContent()).toContain('At most 5 suggestions (now 6)');
  expect(await view().locator('#evidence_threshold').getAttribute('aria-invalid')).toBe('true');
  // The first field in error has the focus, so a keyboard or screen-reader user lands on it.
  expect(
    await page.evaluate(
      () =>
        document.querySelector('kb-admin')?.shadowRoot?.querySelector('kb-admin-settings')?.shadowRoot?.activeElement
          ?.id,
    ),
  ).toBe('evidence_threshold');
  expect(await stored()).toEqual(before);
  await axe();
  await page.screenshot({ path: join(ROOT, `${SHOTS}/settings-invalid.png`), fullPage: true });
});

it("saves: a question answered before is refused with the owner's suggestions, the greeting reaches the widget", async () => {
  expect((await visitorAsks()).type).toBe('answer');
  await view().getByLabel('Vector mode').fill('0.7');
  await view().locator('#greeting').fill('Hi! Ask me about billing.');
  await view().locator('#refusal_suggestions').fill('Email billing@example.com\n\nBrowse the FAQ\n');
  await view().getByRole('button', { name: 'Save' }).click();
  await expect.poll(() => view().locator('form > button + [role="status"]').textContent()).toBe('Saved.');
  expect(await view().locator('#evidence_threshold-about').textContent()).toContain('In effect: 0.7 (set here)');
  expect(await view().locator('#evidence_threshold-error').textContent()).toBe('');

  expect(await stored()).toMatchObject({
    evidence_threshold: expect.closeTo(0.7, 5),
    greeting: 'Hi! Ask me about billing.',
    refusal_suggestions: ['Email billing@example.com', 'Browse the FAQ'],
    answer_mode: null,
    hybrid_threshold: null,
  });
  expect(await visitorAsks()).toMatchObject({
    type: 'refusal',
    suggestions: ['Email billing@example.com', 'Browse the FAQ'],
  });
  expect(await (await fetch(`${server.baseUrl}/api/config`)).json()).toMatchObject({
    greeting: 'Hi! Ask me about billing.',
  });
  await axe();
  await page.screenshot({ path: join(ROOT, `${SHOTS}/settings.png`), fullPage: true });

  // After a reload the form shows what is stored; emptying the threshold hands it back to the server.
  await page.reload();
  await view().locator('form').waitFor();
  expect(await view().locator('#evidence_threshold').inputValue()).toBe('0.7');
  expect(await view().locator('#refusal_suggestions').inputValue()).toBe('Email billing@example.com\nBrowse the FAQ');
  await view().getByLabel('Vector mode').fill('');
  await view().getByRole('button', { name: 'Save' }).click();
  await expect
    .poll(() => view().locator('#evidence_threshold-about').textContent())
    .toContain('In effect: 0.35 (server default)');
  expect(await stored()).toMatchObject({ evidence_threshold: null, greeting: 'Hi! Ask me about billing.' });
  expect((await visitorAsks()).type).toBe('answer');
});

it('passes axe at phone width', async () => {
  const phone = await (await server.browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await phone.goto(await server.signInUrl());
  await phone.locator('kb-admin-overview h2').waitFor();
  await phone.goto(`${server.baseUrl}/admin/#/settings`);
  await phone.locator('kb-admin-settings form').waitFor();
  await axe(phone);
  await phone.close();
});

it('shows a greeting and suggestions holding markup as text', async () => {
  const payload = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
  await server.api.store.db.query('update kb_settings set greeting = $1, refusal_suggestions = $2', [
    payload,
    [payload],
  ]);
  await page.reload();
  await view().locator('form').waitFor();
  await expect.poll(() => view().locator('#greeting-about').textContent()).toContain(payload);
  expect(await view().locator('#refusal_suggestions').inputValue()).toBe(payload);
  expect(await view().locator('img, script').count()).toBe(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await server.api.store.db.exec('update kb_settings set greeting = null, refusal_suggestions = null');
});
