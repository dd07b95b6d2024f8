/**
 * A visitor's first visit end to end: the real server (server/runtime/node/start.ts on a copy of the run's
 * seeded data directory, test-double model) and the demo page in Chromium.
 * - A visitor on a fresh page types a question and presses Enter before the model has loaded, and gets an
 *   answer (keyword mode, with a note); once the model is ready the next question carries the embedding.
 *   The embedder's first request (/api/config) is held back by request interception, so "before the
 *   model has loaded" does not depend on the machine's speed.
 * - The real server's headers: compression with Vary, ETag/304 for the loader, immutable hashed and
 *   versioned files, and an uncompressed SSE stream whatever the browser accepts.
 * - The phone layout (390×844): the panel is the whole screen and nothing covers Send; the header title is
 *   whole at the default width and its icon buttons have names and tooltips.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, modelReady, startServerAndBrowser, type Running } from './server.ts';

let running: Running;
const IMMUTABLE = 'public, max-age=31536000, immutable';
// KB_SCREENSHOTS=1 refreshes the docs' screenshots (as widget-a11y.test.ts does); otherwise test-results/.
const SHOTS = process.env.KB_SCREENSHOTS === '1' ? 'docs/screenshots' : 'test-results/screenshots';

beforeAll(async () => {
  running = await startServerAndBrowser();
});
afterAll(async () => {
  await running?.stop();
});

const url = (path: string) => new URL(path, running.baseUrl).href;

async function newPage(
  viewport = { width: 1280, height: 860 },
): Promise<{ context: BrowserContext; page: Page; chats: string[] }> {
  const context = await running.browser.newContext({ viewport });
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error('[page error]', error));
  const chats: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/api/chat')) chats.push(request.postData() ?? '');
  });
  await page.goto(running.baseUrl);
  return { context, page, chats };
}

const embedderStatus = (page: Page) =>
  page.evaluate(
    () =>
      (document.querySelector('kb-chat') as unknown as { ui?: { embedder: { status: string } } }).ui?.embedder.status,
  );

describe('a question on a fresh page, before the model has loaded', () => {
  it('is answered at once in keyword mode; the model keeps loading and the next question uses hybrid retrieval', async () => {
    const { context, page, chats } = await newPage();
    // Hold the embedder's first step, GET /api/config, until released: the model cannot be ready before
    // then. (Its later requests, from the Worker, are out of reach of request interception.)
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held: string[] = [];
    await context.route('**/api/config', async (route: Route) => {
      held.push(route.request().url());
      await released;
      await route.continue().catch(() => undefined);
    });

    await page.locator('kb-chat [part~="bubble"]').click();
    const input = page.locator('kb-chat [part="input"]');
    await input.fill('How do I add the chat widget to my website?');
    await input.press('Enter');
    const first = page.locator('kb-chat [part~="assistant-message"][data-status="done"]').first();
    await first.waitFor({ timeout: 20_000 });
    expect(await embedderStatus(page)).toBe('loading');
    expect(held.length).toBeGreaterThan(0); // the model load began, and is still on its way
    expect((await first.innerText()).toLowerCase()).toContain('script');
    expect(await first.locator('[part~="loading-note"]').innerText()).toBe(
      'Answered by keyword search while the full search loads.',
    );
    expect(chats).toHaveLength(1);
    expect(JSON.parse(chats[0]!)).not.toHaveProperty('embedding');
    await page.screenshot({ path: join(ROOT, SHOTS, 'loading-answer.png') });

    release();
    await expect.poll(() => embedderStatus(page), { timeout: 30_000, interval: 100 }).toBe('ready');
    await input.fill('How do I add the chat widget to my website?');
    await input.press('Enter');
    const second = page.locator('kb-chat [part~="assistant-message"][data-status="done"]').nth(1);
    await second.waitFor({ timeout: 20_000 });
    expect(chats).toHaveLength(2);
    expect(JSON.parse(chats[1]!).embedding).toHaveLength(384);
    expect(await second.locator('[part~="loading-note"]').count()).toBe(0);
    await context.close();
  });
});

describe('a later visit', () => {
  it('downloads nothing but a revalidation of the loader: bundles and wasm from the HTTP cache, the model from the Cache API', async () => {
    const { context, page } = await newPage();
    await page.locator('kb-chat [part~="bubble"]').click();
    await modelReady(page);
    await page.close();

    const again = await context.newPage();
    await again.goto(running.baseUrl);
    await again.locator('kb-chat [part~="bubble"]').click();
    await modelReady(again);
    type Entry = { url: string; transferSize: number };
    const { pageEntries, workerEntries } = await again.evaluate(async () => {
      const el = document.querySelector('kb-chat') as unknown as {
        ui: { embedder: { resources(): Promise<Entry[]> } };
      };
      return {
        pageEntries: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => ({
          url: e.name,
          transferSize: e.transferSize,
        })),
        workerEntries: await el.ui.embedder.resources(),
      };
    });
    const path = (e: Entry) => new URL(e.url).pathname;
    const widget = [...pageEntries, ...workerEntries].filter((e) => /^\/(kb-chat|ort\/|models\/)/.test(path(e)));
    const fromNetwork = widget.filter((e) => e.transferSize > 0).map(path);
    expect(fromNetwork).toEqual(['/kb-chat.js']); // revalidated (a 304), as its Cache-Control says
    expect(widget.map(path)).toContain(`/${(await manifest()).ui}`);
    expect(widget.some((e) => path(e).endsWith('.wasm'))).toBe(true); // from the HTTP cache (transferSize 0)
    // The model files never reach the network layer: transformers.js reads them from the Cache API.
    expect(workerEntries.filter((e) => path(e).startsWith('/models/'))).toEqual([]);
    await context.close();
  });
});

const manifest = async () =>
  JSON.parse(await readFile(join(ROOT, 'dist/manifest.json'), 'utf8')) as {
    ui: string;
    embedder: string;
    ort_wasm: string;
  };

describe("the real server's headers", () => {
  const get = (path: string, headers: Record<string, string> = {}) => fetch(url(path), { headers });

  it('the loader: compressed (Vary), revalidated by ETag with 304', async () => {
    const br = await get('/kb-chat.js', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toBe('Accept-Encoding');
    expect(br.headers.get('cache-control')).toBe('public, no-cache');
    expect(br.headers.get('access-control-allow-origin')).toBe('*');
    const etag = br.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    await br.arrayBuffer();
    const again = await get('/kb-chat.js', { 'Accept-Encoding': 'gzip, deflate, br', 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const gz = await get('/kb-chat.js', { 'Accept-Encoding': 'gzip' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    await gz.arrayBuffer();
  });

  it('the chat UI, the embedder and the wasm: content-hashed or versioned, immutable, compressed', async () => {
    const { ui, embedder, ort_wasm } = await manifest();
    expect(ui).toMatch(/^kb-chat-ui\.[0-9a-f]{10}\.js$/);
    const loader = await (await get('/kb-chat.js')).text();
    expect(loader).toContain(ui); // the loader names this build's chunks
    expect(loader).toContain(embedder);
    for (const path of [`/${ui}`, `/${embedder}`, `/${ort_wasm}`]) {
      const res = await get(path, { 'Accept-Encoding': 'br, gzip' });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control'), path).toBe(IMMUTABLE);
      expect(res.headers.get('content-encoding'), path).toBe('br');
      expect(res.headers.get('vary'), path).toBe('Accept-Encoding');
      await res.arrayBuffer();
    }
    const wasm = await get(`/${ort_wasm}`, { 'Accept-Encoding': 'br' });
    expect(wasm.headers.get('content-type')).toBe('application/wasm');
    // 14.3 MB uncompressed.
    expect(Number(wasm.headers.get('content-length'))).toBeLessThan(4 * 1024 * 1024);
    await wasm.arrayBuffer();
    expect((await get('/ort/0.0.0/ort-wasm-simd-threaded.wasm')).status).toBe(404); // not this build's version
  });

  it('the model: a versioned URL from /api/config, immutable and compressed', async () => {
    const config = (await (await get('/api/config')).json()) as { models_url: string; embed_model: string };
    expect(config.models_url).toMatch(/^\/models\/v-[0-9a-f]{10}\/$/);
    const tokenizer = await get(`${config.models_url}${config.embed_model}/tokenizer.json`, {
      'Accept-Encoding': 'gzip, br',
    });
    expect(tokenizer.status).toBe(200);
    expect(tokenizer.headers.get('cache-control')).toBe(IMMUTABLE);
    expect(tokenizer.headers.get('content-encoding')).toBe('br');
    expect(tokenizer.headers.get('vary')).toBe('Accept-Encoding');
    expect(Number(tokenizer.headers.get('content-length'))).toBeLessThan(300_000); // 711,661 bytes as a file
    await tokenizer.arrayBuffer();
    const unversioned = await get(`/models/${config.embed_model}/config.json`);
    expect(unversioned.headers.get('cache-control')).toBe('public, no-cache');
    await unversioned.arrayBuffer();
  });

  it('never compresses the answer stream (SSE), whatever the browser accepts', async () => {
    const auth = (await (await fetch(url('/api/auth/anonymous'), { method: 'POST' })).json()) as {
      access_token: string;
    };
    const res = await fetch(url('/api/chat'), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Accept-Encoding': 'br, gzip',
        Authorization: `Bearer ${auth.access_token}`,
      },
      body: JSON.stringify({ message: 'How do I add the chat widget to my website?', message_id: crypto.randomUUID() }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('content-encoding')).toBe('identity');
    expect(await res.text()).toContain('event: answer_end');
  });
});

describe('phone and header', () => {
  it('390×844: the open panel is the whole screen and no bubble covers Send', async () => {
    const { context, page } = await newPage({ width: 390, height: 844 });
    await page.locator('kb-chat [part~="bubble"]').click();
    const panel = page.locator('kb-chat [part="panel"]');
    await panel.waitFor();
    await page.evaluate(() =>
      Promise.all(
        document
          .querySelector('kb-chat')!
          .shadowRoot!.getAnimations()
          .map((a) => a.finished),
      ),
    );
    expect(await panel.boundingBox()).toMatchObject({ x: 0, y: 0, width: 390, height: 844 });
    expect(await page.locator('kb-chat [part~="bubble"]').isVisible()).toBe(false);
    // What a tap on the middle of Send hits is Send itself.
    const hit = await page.evaluate(() => {
      const root = document.querySelector('kb-chat')!.shadowRoot!;
      const send = root.querySelector('[part="send-button"]')!;
      const box = send.getBoundingClientRect();
      return root.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2) === send;
    });
    expect(hit).toBe(true);
    await page.screenshot({ path: join(ROOT, SHOTS, 'phone-open.png') });
    await context.close();
  });

  it('default width: the title is whole; History, New chat and Close are icon buttons with names and tooltips', async () => {
    const { context, page } = await newPage();
    await page.locator('kb-chat [part~="bubble"]').click();
    const title = page.locator('kb-chat [part="header"] h2');
    await title.waitFor();
    expect(await title.innerText()).toBe('Ask the kb-chat docs');
    const geometry = await title.evaluate((h2) => ({
      scroll: h2.scrollWidth,
      client: h2.clientWidth,
      height: h2.clientHeight,
      line: parseFloat(getComputedStyle(h2).lineHeight) || 24,
    }));
    expect(geometry.scroll).toBeLessThanOrEqual(geometry.client);
    expect(geometry.height).toBeLessThan(geometry.line * 1.5); // one line
    const names: string[] = [];
    for (const part of ['history-button', 'new-chat-button', 'close-button']) {
      const button = page.locator(`kb-chat [part="${part}"]`);
      const name = (await button.getAttribute('aria-label'))!;
      names.push(name);
      expect(await button.innerText()).toBe(''); // an icon, not words
      await button.focus();
      await page.keyboard.press('Shift'); // keyboard modality: :focus-visible
      await expect
        .poll(() => button.evaluate((el) => getComputedStyle(el, '::after').opacity), { timeout: 2_000 })
        .toBe('1');
      expect(await button.evaluate((el) => getComputedStyle(el, '::after').content)).toBe(JSON.stringify(name));
    }
    expect(names).toEqual(['History', 'New chat', 'Close chat']);
    await page.locator('kb-chat [part="new-chat-button"]').focus();
    await page.waitForTimeout(500);
    await page.locator('kb-chat [part="panel"]').screenshot({ path: join(ROOT, SHOTS, 'header.png') });
    await context.close();
  });
});
