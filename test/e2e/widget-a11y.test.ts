/**
 * The widget on the demo page with the real server, in Chromium: axe (@axe-core/playwright) reports 0
 * violations in the closed, open, answering, answered, refusal, error and history states; each state is
 * also saved as a screenshot (for the README with KB_SCREENSHOTS=1: docs/screenshots/).
 */
import AxeBuilder from '@axe-core/playwright';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServerAndBrowser, type Running } from './server.ts';

let running: Running;
let page: Page;
const results: Record<string, number> = {};

beforeAll(async () => {
  running = await startServerAndBrowser();
  // AxeBuilder needs a page from browser.newContext() (TOOLCHAIN.md).
  const context = await running.browser.newContext({ viewport: { width: 1100, height: 760 } });
  page = await context.newPage();
  page.on('pageerror', (error) => console.error('[page error]', error));
  await page.goto(running.baseUrl);
});

afterAll(async () => {
  console.log('[axe violations per state]', JSON.stringify(results));
  await running?.stop();
});

/** Animations finished, so contrast and geometry are measured on what is painted. */
async function settle(): Promise<void> {
  await page.evaluate(() =>
    Promise.all(
      document
        .querySelector('kb-chat')!
        .shadowRoot!.getAnimations()
        .filter((a) => a.effect?.getTiming().iterations !== Infinity) // the typing dots never finish
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
}

async function axe(state: string): Promise<void> {
  await settle();
  const { violations } = await new AxeBuilder({ page }).analyze();
  results[state] = violations.length;
  const summary = violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(summary, state).toEqual([]);
}

// `KB_SCREENSHOTS=1` refreshes the README's screenshots; otherwise they go to test-results/ (a test run
// must not dirty the working tree).
const SHOTS = process.env.KB_SCREENSHOTS === '1' ? 'docs/screenshots' : 'test-results/screenshots';
const shot = (name: string) => page.screenshot({ path: join(ROOT, `${SHOTS}/${name}.png`) });

async function ask(question: string) {
  await page.locator('kb-chat [part="input"]').fill(question);
  await page.locator('kb-chat [part="send-button"]').click();
}

describe('widget accessibility (axe) and screenshots', () => {
  it('closed', async () => {
    await page.locator('kb-chat [part="bubble"]').waitFor();
    await axe('closed');
    await shot('closed');
  });

  it('open (model loaded)', async () => {
    await page.locator('kb-chat [part="bubble"]').click();
    await page.locator('kb-chat [part="send-button"]:not([disabled])').waitFor({ timeout: 30_000 });
    await axe('open');
    await shot('open');
  });

  it('answering (mid-stream)', async () => {
    // Hold the request a moment so the typing indicator is on screen while axe runs.
    await page.route('**/api/chat', async (route) => {
      await new Promise((r) => setTimeout(r, 4000));
      await route.continue().catch(() => undefined);
    });
    await ask('How do I add the chat widget to my website?');
    await page.locator('kb-chat [part~="typing-indicator"]').waitFor();
    await axe('answering');
    await shot('answering');
  });

  it('answered, with inline citations and sources', async () => {
    const answer = page.locator('kb-chat [part~="assistant-message"][data-status="done"]').last();
    await answer.waitFor({ timeout: 30_000 });
    await page.unroute('**/api/chat');
    await answer.locator('[part="citation"]').first().focus(); // shows the preview
    await axe('answered');
    await shot('answer');
  });

  it('refusal', async () => {
    await ask('Who won the football match yesterday?');
    await page.locator('kb-chat [part~="refusal"]').last().waitFor({ timeout: 20_000 });
    await axe('refusal');
    await shot('refusal');
  });

  it('error (connection lost)', async () => {
    await page.route('**/api/chat', (route) => route.abort('failed'));
    await ask('How is my data kept private?');
    await page.locator('kb-chat [part="error"]').last().waitFor({ timeout: 20_000 });
    expect(await page.locator('kb-chat [part="error"]').last().innerText()).toContain('Could not reach the server');
    await axe('error');
    await shot('error');
    await page.unroute('**/api/chat');
  });

  it('history', async () => {
    await page.locator('kb-chat [part="history-button"]').click();
    await page.locator('kb-chat [part="session"]').first().waitFor({ timeout: 10_000 });
    await axe('history');
    await shot('history');
    await page.locator('kb-chat [part="session"]').first().click();
    await page.locator('kb-chat [part~="assistant-message"]').first().waitFor();
  });

  it('survives a reload: the current session is restored', async () => {
    await page.reload();
    await page.locator('kb-chat [part="bubble"]').click();
    await page.locator('kb-chat [part~="user-message"]').first().waitFor({ timeout: 10_000 });
  });

  it('small screens: full screen panel, 16px input; dark theme', async () => {
    await page.setViewportSize({ width: 390, height: 780 });
    await page.evaluate(() => document.querySelector('kb-chat')!.setAttribute('theme', 'dark'));
    await settle();
    const box = await page.locator('kb-chat [part="panel"]').boundingBox();
    expect(box).toMatchObject({ x: 0, y: 0, width: 390, height: 780 });
    expect(await page.locator('kb-chat [part="input"]').evaluate((el) => getComputedStyle(el).fontSize)).toBe('16px');
    await axe('mobile-dark');
    await shot('mobile-dark');
  });
});
