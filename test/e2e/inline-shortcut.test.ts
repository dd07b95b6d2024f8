/**
 * The inline demo page (`mode="inline" shortcut="mod+k"`) with the real server, in Chromium: axe
 * (@axe-core/playwright) reports 0 violations before and after the shortcut; Ctrl+K from the page focuses the
 * question box, and a question asked there is answered in place. The answered state is the docs' screenshot
 * of the inline mode (KB_SCREENSHOTS=1: docs/screenshots/inline.png).
 */
import AxeBuilder from '@axe-core/playwright';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ROOT, modelReady, startServerAndBrowser, type Running } from './server.ts';

let running: Running;
let page: Page;

beforeAll(async () => {
  running = await startServerAndBrowser();
  // AxeBuilder needs a page from browser.newContext().
  const context = await running.browser.newContext({ viewport: { width: 900, height: 1000 } });
  page = await context.newPage();
  page.on('pageerror', (error) => console.error('[page error]', error));
  await page.goto(`${running.baseUrl}/inline.html`);
});

afterAll(async () => {
  await running?.stop();
});

async function violations(): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

it('inline: Ctrl+K focuses the question box, axe finds nothing, and the answer appears in the page', async () => {
  const input = page.locator('kb-chat [part="input"]');
  await input.waitFor();
  expect(await input.getAttribute('aria-keyshortcuts')).toBe('Control+K');
  expect(await violations()).toEqual([]);

  await page.locator('h1').click(); // focus on the page, not in a field
  await page.keyboard.press('Control+K');
  await expect
    .poll(() =>
      input.evaluate(
        (el) => el.getRootNode() instanceof ShadowRoot && (el.getRootNode() as ShadowRoot).activeElement === el,
      ),
    )
    .toBe(true);
  expect(await violations()).toEqual([]);

  await modelReady(page);
  await page.keyboard.type('How do I add the chat widget to my website?');
  await page.keyboard.press('Enter');
  await page.locator('kb-chat [part~="assistant-message"][data-status="done"]').last().waitFor({ timeout: 30_000 });
  expect(await violations()).toEqual([]);
  const shots = process.env.KB_SCREENSHOTS === '1' ? 'docs/screenshots' : 'test-results/screenshots';
  await page.screenshot({ path: join(ROOT, `${shots}/inline.png`) });
});
