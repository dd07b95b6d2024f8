/**
 * The widget as site owners use it: the host page on one origin, the script tag pointing at the kb-chat
 * server on another. The embedder Worker must still start (browsers refuse cross-origin worker scripts, so
 * the widget starts it from a same-origin blob), the model and wasm load with CORS, and the API answers
 * the allowed origin.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelReady, startServerAndBrowser, type Running } from './server.ts';

let host: Server;
let hostOrigin: string;
let apiOrigin = '';
let running: Running;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  host = createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(`<!doctype html><html lang="en"><head><title>Acme help</title></head><body><h1>Acme help center</h1>
<script type="module" src="${apiOrigin}/kb-chat.js"></script><kb-chat heading="Ask Acme"></kb-chat></body></html>`);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  // Another port is another origin; "localhost" vs 127.0.0.1 would be too, but stays on loopback either way.
  hostOrigin = `http://localhost:${(host.address() as AddressInfo).port}`;
  running = await startServerAndBrowser({ KB_ALLOWED_ORIGINS: hostOrigin });
  apiOrigin = running.baseUrl;
  page = await (await running.browser.newContext()).newPage();
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  await page.goto(hostOrigin);
});

afterAll(async () => {
  await running?.stop();
  host?.close();
});

describe('embedded on another origin', () => {
  it('loads the model in the embedder Worker and answers with a citation', async () => {
    expect(new URL(running.baseUrl).origin).not.toBe(hostOrigin);
    await page.locator('kb-chat [part="bubble"]').click();
    await modelReady(page);
    // The full embedder, not keyword mode: no model-failure notice.
    expect(await page.locator('kb-chat [part="panel"]').innerText()).not.toContain('could not be loaded');
    await page.locator('kb-chat [part="input"]').fill('How do I add the chat widget to my website?');
    await page.locator('kb-chat [part="send-button"]').click();
    const source = page.locator('kb-chat [part~="assistant-message"] [part~="source-link"]').first();
    await source.waitFor({ timeout: 20_000 });
    expect(await source.innerText()).not.toBe('');
    expect(pageErrors).toEqual([]);
  });
});
