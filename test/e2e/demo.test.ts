/**
 * End to end, as a visitor meets it: the real server (`scripts/start.ts`, a fresh data directory, so the
 * first-run ingestion of the demo knowledge base runs too), the demo page in Debian's Chromium, the widget
 * bundle, the embedder Worker with transformers.js + ONNX Runtime wasm, the test-double model, PGlite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

let server: ChildProcess;
let baseUrl: string;
let dataDir: string;
let browser: Browser;
let page: Page;
const foreignRequests: string[] = [];
const timings: Record<string, number> = {};

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/kb-chat.js'))) throw new Error('dist/kb-chat.js is missing: run `npm run build` first');
  dataDir = await mkdtemp(join(tmpdir(), 'kb-e2e-'));
  let started = performance.now();
  server = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/start.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      KB_DATA_DIR: dataDir,
      KB_EMBED_MODEL: 'test-double/bert-384',
      KB_MODEL_DIR: join(ROOT, 'test/fixtures/models'),
      KB_JWT_SECRET: 'e2e-secret-e2e-secret-e2e-secret-0123',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  baseUrl = await new Promise<string>((resolve, reject) => {
    let output = '';
    const onData = (data: Buffer) => {
      output += data.toString();
      const match = /kb-chat is running at (http:\/\/\S+?)\/? /.exec(output);
      if (match) resolve(match[1]!);
    };
    server.stdout!.on('data', onData);
    server.stderr!.on('data', onData);
    server.on('exit', (code) => reject(new Error(`server exited (${code}) before it was ready:\n${output}`)));
  });
  timings.serverStartMs = performance.now() - started;

  started = performance.now();
  await mkdir(join(ROOT, 'test-results'), { recursive: true });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  const origin = new URL(baseUrl).origin;
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) foreignRequests.push(url);
  });
  page.on('pageerror', (error) => console.error('[page error]', error));
  await page.goto(baseUrl);
  timings.browserReadyMs = performance.now() - started;
});

afterAll(async () => {
  await browser?.close();
  server?.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  await rm(dataDir, { recursive: true, force: true });
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
    // The send button is enabled once the embedder Worker has loaded the model.
    await page.locator('kb-chat [part="send-button"]:not([disabled])').waitFor({ timeout: 30_000 });
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
