/**
 * End to end, as a visitor meets it: the real server (`server/runtime/node/start.ts`, a fresh data directory, so the
 * first-run ingestion of the demo knowledge base runs too), the demo page in Debian's Chromium, the widget
 * bundle, the embedder Worker with transformers.js + ONNX Runtime wasm, the test-double model, PGlite.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, modelReady, startServerAndBrowser, type Running } from './server.ts';

let running: Running;
let page: Page;
const foreignRequests: string[] = [];
const timings: Record<string, number> = {};

beforeAll(async () => {
  const started = performance.now();
  // An empty data directory (not the run's seeded copy): this file covers the first start's demo ingestion.
  running = await startServerAndBrowser({}, { fresh: true });
  timings.serverAndBrowserStartMs = performance.now() - started;
  await mkdir(join(ROOT, 'test-results'), { recursive: true });
  page = await (await running.browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  const origin = new URL(running.baseUrl).origin;
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) foreignRequests.push(url);
  });
  page.on('pageerror', (error) => console.error('[page error]', error));
  await page.goto(running.baseUrl);
});

afterAll(async () => {
  await running?.stop();
  console.log('[e2e timings]', JSON.stringify(timings));
});

async function ask(question: string) {
  const input = page.locator('kb-chat [part="input"]');
  await input.fill(question);
  await page.locator('kb-chat [part="send-button"]').click();
}

describe('the demo page', () => {
  it('shows the bubble, opens the panel and loads the model from the same origin', async () => {
    await page.locator('kb-chat [part="bubble"]').click();
    await expect.poll(() => page.locator('kb-chat [part="panel"]').isVisible()).toBe(true);
    const started = performance.now();
    // The embedder Worker loads the model from the same origin.
    await modelReady(page);
    timings.modelReadyMs = performance.now() - started;
  });

  it('answers an on-topic question with a streamed, cited answer', async () => {
    const started = performance.now();
    await ask('How do I add the chat widget to my website?');
    const answer = page.locator('kb-chat [part~="assistant-message"]').last();
    const source = answer.locator('[part~="source-link"]').first();
    await source.waitFor({ timeout: 20_000 });
    timings.answerMs = performance.now() - started;
    const text = await answer.innerText();
    // The answer's [n] markers are rendered as citation badges tied to its sources.
    expect(await answer.locator('[part="citation"]').first().innerText()).toBe('1');
    expect(text.toLowerCase()).toContain('script');
    expect(await source.getAttribute('href')).toMatch(/\/docs\/[a-z-]+/);
    expect(await source.innerText()).not.toBe('');
    await page.screenshot({ path: join(ROOT, 'test-results/e2e-answer.png') });
  });

  it('refuses an off-topic question instead of inventing an answer', async () => {
    await ask('Who won the football match yesterday?');
    const refusal = page.locator('kb-chat [part~="refusal"]').last();
    await refusal.waitFor({ timeout: 20_000 });
    expect(await refusal.innerText()).toContain("I don't have enough information");
    await page.screenshot({ path: join(ROOT, 'test-results/e2e-refusal.png') });
  });

  it('made no request to any other origin', () => {
    expect(foreignRequests).toEqual([]);
  });
});
