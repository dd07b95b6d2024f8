/**
 * The console as a newcomer meets it after `npm start` (the real demo server, its own knowledge base, no
 * KB_SYNC_SOURCES), in Chromium under the console's CSP: a sign-in lands on the overview; answers show as
 * rendered Markdown (code as code, no backticks), citations name the title once; a thread has its own address
 * and back/forward move between it and the list; a new view starts at its top on a phone; Enter asks in Try
 * and excerpts keep their underscores; the Sync panel says what enables it. Screenshots at 1280×800 and
 * 390×844 go to test-results/screenshots/console-*.png.
 */
import AxeBuilder from '@axe-core/playwright';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLinkToken } from '../../server/console/session.ts';
import { ROOT, startServerAndBrowser, type Running } from './server.ts';

const SECRET = 'e2e-newcomer-secret-e2e-newcomer-0123';
const SHOTS = join(ROOT, 'test-results/screenshots');
const SIZES = [
  ['desktop', 1280, 800],
  ['phone', 390, 844],
] as const;

let running: Running;
const pages: Record<string, Page> = {};

/** A visitor asks through the API, as the widget in keyword mode would. */
async function visitorAsks(message: string): Promise<void> {
  const { access_token } = (await (
    await fetch(`${running.baseUrl}/api/auth/anonymous`, { method: 'POST' })
  ).json()) as { access_token: string };
  const res = await fetch(`${running.baseUrl}/api/chat`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${access_token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    },
    body: JSON.stringify({ message, message_id: crypto.randomUUID() }),
  });
  expect(res.status).toBe(200);
}

async function axe(page: Page, name: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(
    violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    name,
  ).toEqual([]);
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

beforeAll(async () => {
  running = await startServerAndBrowser({ KB_JWT_SECRET: SECRET });
  await mkdir(SHOTS, { recursive: true });
  await visitorAsks('What is KB_JWT_SECRET used for?');
  await visitorAsks('How do I add the chat widget to my website?');
  await visitorAsks('Who won the football match yesterday?');
  for (const [name, width, height] of SIZES) {
    // A session belongs to its tab (sessionStorage): each signs in with a link of its own.
    const page = await (await running.browser.newContext({ viewport: { width, height } })).newPage();
    page.on('pageerror', (error) => console.error('[page error]', error));
    pages[name] = page;
  }
});

afterAll(async () => {
  await running?.stop();
});

describe('the console for a newcomer', () => {
  it('the start output says where the console is and how to sign in', () => {
    expect(running.output()).toMatch(/Console for site owners: http:\/\/\S+\/admin\//);
    expect(running.output()).toContain('npm run console -- link --url');
  });

  it('a sign-in link lands on the overview', async () => {
    for (const [name] of SIZES) {
      const page = pages[name]!;
      await page.goto(`${running.baseUrl}/admin/#link=${await createLinkToken(SECRET)}`);
      await page.locator('kb-admin-overview h2').waitFor();
      expect(page.url()).toMatch(/\/admin\/#\/overview$/);
      await page.waitForLoadState('networkidle');
      await shot(page, `console-overview-${name}`);
    }
  });

  it('conversations show answers as rendered Markdown and each citation title once', async () => {
    const page = pages.desktop!;
    await page.locator('kb-admin nav a[href="#/conversations"]').click();
    const answer = page.locator('kb-admin-conversations article', { hasText: 'KB_JWT_SECRET used for' }).locator('.md');
    await answer.waitFor();
    // `KB_JWT_SECRET` in the stored answer is a code element, not text between backticks.
    expect(await answer.locator('code', { hasText: 'KB_JWT_SECRET' }).count()).toBeGreaterThan(0);
    expect(await answer.textContent()).not.toContain('`');
    const citations = await page.locator('kb-admin-conversations .citations li a').allTextContents();
    expect(citations.length).toBeGreaterThan(0);
    for (const label of citations) {
      const [title, ...rest] = label.split(' › ');
      expect(rest[0], label).not.toBe(title);
    }
    await axe(page, 'conversations');
    await shot(page, 'console-conversations-desktop');
  });

  it('a thread has its own address; back and forward move between it and the list', async () => {
    const page = pages.desktop!;
    await page
      .locator('kb-admin-conversations article', { hasText: 'KB_JWT_SECRET used for' })
      .getByRole('link', { name: 'Read the conversation' })
      .click();
    await page.locator('kb-admin-conversations .thread .md').first().waitFor();
    const threadUrl = page.url();
    expect(threadUrl).toMatch(/#\/conversations\/[0-9a-f-]{36}$/);
    await axe(page, 'thread');
    await shot(page, 'console-thread-desktop');
    await page.goBack();
    await page.locator('kb-admin-conversations article').first().waitFor();
    expect(page.url()).toMatch(/#\/conversations$/);
    await page.goForward();
    await page.locator('kb-admin-conversations .thread').waitFor();
    // The address alone opens it, in a fresh load too.
    await page.goto(threadUrl);
    await page.reload();
    await page.locator('kb-admin-conversations .thread .md').first().waitFor();
  });

  it('on a phone a new view or thread starts at its top', async () => {
    const page = pages.phone!;
    await page.locator('kb-admin nav a[href="#/conversations"]').click();
    await page.locator('kb-admin-conversations article').nth(2).waitFor();
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(200);
    await page
      .locator('kb-admin-conversations article')
      .last()
      .getByRole('link', { name: 'Read the conversation' })
      .click();
    await page.locator('kb-admin-conversations .thread').waitFor();
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    await shot(page, 'console-thread-phone');
  });

  it('Try a question: Enter asks, and excerpts keep their underscores', async () => {
    for (const [name] of SIZES) {
      const page = pages[name]!;
      await page.goto(`${running.baseUrl}/admin/#/try`);
      const box = page.locator('kb-admin-try textarea');
      await box.fill('What is KB_JWT_SECRET used for?');
      await box.press('Enter');
      await page.locator('kb-admin-try .verdict').waitFor();
      expect(await box.inputValue()).toBe('What is KB_JWT_SECRET used for?'); // Enter asked; it added no line
      const excerpts = await page.locator('kb-admin-try .excerpt').allTextContents();
      expect(excerpts.join(' ')).toContain('KB_JWT_SECRET');
      expect(excerpts.join(' ')).not.toContain('KBJWTSECRET');
      await shot(page, `console-try-${name}`);
    }
  });

  it('the Sync panel says that KB_SYNC_SOURCES enables it', async () => {
    for (const [name] of SIZES) {
      const page = pages[name]!;
      await page.goto(`${running.baseUrl}/admin/#/documents`);
      const panel = page.locator('kb-admin-sync section');
      await expect.poll(() => panel.textContent()).toContain('No sync has run yet.');
      expect(await panel.textContent()).toContain('set KB_SYNC_SOURCES');
      await panel.scrollIntoViewIfNeeded();
      await shot(page, `console-sync-${name}`);
    }
  });
});
