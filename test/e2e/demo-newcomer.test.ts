/**
 * The demo page as a newcomer meets it, with the real server in Chromium: every link on it (and on the pages
 * it links to) resolves, Ctrl+K opens the chat as the page says, and at 390 px the header stays on one line
 * and the bubble can be scrolled clear of the content. Screenshots at 1280×800 and 390×844 go to
 * test-results/screenshots/demo-*.png.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServerAndBrowser, type Running } from './server.ts';

let running: Running;
const SHOTS = join(ROOT, 'test-results/screenshots');

beforeAll(async () => {
  running = await startServerAndBrowser();
  await mkdir(SHOTS, { recursive: true });
});

afterAll(async () => {
  await running?.stop();
});

async function open(browser: Browser, width: number, height: number, path = '/'): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width, height } })).newPage();
  page.on('pageerror', (error) => console.error('[page error]', error));
  await page.goto(`${running.baseUrl}${path}`);
  await page.locator('kb-chat [part="bubble"]').waitFor();
  return page;
}

describe('the demo page for a newcomer', () => {
  it('every link on it, and on the pages it links to, resolves', async () => {
    const page = await open(running.browser, 1280, 800);
    const origin = new URL(running.baseUrl).origin;
    const seen = new Map<string, number>();
    let frontier = ['/'];
    for (let depth = 0; depth < 2 && frontier.length; depth++) {
      const next: string[] = [];
      for (const path of frontier) {
        await page.goto(`${origin}${path}`);
        const hrefs = await page.$$eval('a[href]', (links) => links.map((a) => (a as HTMLAnchorElement).href));
        for (const href of hrefs) {
          const url = new URL(href);
          if (url.origin !== origin) continue;
          const target = url.pathname + url.search;
          if (seen.has(target)) continue;
          const response = await page.request.get(`${origin}${target}`);
          seen.set(target, response.status());
          if ((response.headers()['content-type'] ?? '').includes('text/html')) next.push(target);
        }
      }
      frontier = next;
    }
    expect(seen.get('/docs/how-it-works')).toBe(200);
    expect([...seen].filter(([, status]) => status !== 200)).toEqual([]);
    expect(seen.size).toBeGreaterThan(4);
  });

  it('Ctrl+K opens the chat with the question box focused', async () => {
    const page = await open(running.browser, 1280, 800);
    await page.locator('h1').click();
    await page.keyboard.press('Control+K');
    await expect.poll(() => page.locator('kb-chat [part="panel"]').isVisible()).toBe(true);
    const input = page.locator('kb-chat [part="input"]');
    await expect.poll(() => input.evaluate((el) => (el.getRootNode() as ShadowRoot).activeElement === el)).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'demo-ctrl-k-1280.png') });
  });

  it('at 1280×800, 390×844 and 360×640 the brand never wraps and the nav is one line that fits', async () => {
    // 360 px is the narrowest phone width in common use; a desktop window narrowed with a classic scrollbar lands near 375.
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
      [360, 640],
    ] as const) {
      const page = await open(running.browser, width, height);
      const brand = await page.locator('.brand').boundingBox();
      const nav = page.locator('header.site nav a');
      const boxes = await nav.evaluateAll((links) => links.map((a) => a.getBoundingClientRect().top));
      // One line each: the brand is one line of text high, every nav link on the same line, none cut off.
      expect(brand!.height).toBeLessThan(40);
      expect(new Set(boxes.map(Math.round)).size).toBe(1);
      const navBox = (await page.locator('header.site nav').boundingBox())!;
      expect(navBox.x + navBox.width).toBeLessThanOrEqual(width);
      expect(await page.locator('header.site nav').evaluate((n) => n.scrollWidth <= n.clientWidth)).toBe(true);
      // Nothing wider than the screen (no sideways scrolling).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: join(SHOTS, `demo-${width}.png`) });
      if (width === 390) {
        // Scrolled to the end, the last card and the footer are clear of the bubble.
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        const bubble = (await page.locator('kb-chat [part="bubble"]').boundingBox())!;
        const footer = (await page.locator('footer.site').boundingBox())!;
        expect(footer.y + footer.height).toBeLessThanOrEqual(bubble.y);
        await page.screenshot({ path: join(SHOTS, 'demo-390-end.png') });
      }
    }
  });
});
