/**
 * The console shows what visitors and documents wrote: questions, answers, 👎 comments, document titles,
 * citation titles and links. Every payload of ../shared/data/xss (payloadbox list + h5sc vectors) goes into
 * each of those places, and the views that show them — content gaps, conversations, documents, try a
 * question — are paged through in Chromium: no payload may run (no dialog, no call to alert/prompt/confirm,
 * no element, event-handler attribute or javascript: link of its own making), and the text is shown as text.
 *
 * The page is served here *without* the console's CSP and Trusted Types, which would block most payloads
 * by themselves: this test checks the escaping, not the policy (the policy is checked by console.test.ts,
 * which runs under it). The API is the real one over an in-memory PGlite database.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../../server/testing/api.ts';
import { basis } from '../../server/testing/vectors.ts';
import { hasSharedData, sharedData } from '../../scripts/lib/shared-data.mjs';
import { startConsoleServer, type ConsoleServer } from './console-server.ts';

const HAS_XSS = hasSharedData('xss/payloadbox-xss-payload-list-public.txt', 'xss/h5sc-vectors-public.jsonl');

function payloads(): string[] {
  const list = readFileSync(sharedData('xss/payloadbox-xss-payload-list-public.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const vectors = readFileSync(sharedData('xss/h5sc-vectors-public.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { payload: string }).payload);
  return [...list, ...vectors];
}

/** Payloads joined into texts of at most `max` characters (a payload longer than that is cut). */
function batches(all: string[], max: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const payload of all.map((p) => p.slice(0, max))) {
    if (current && current.length + payload.length + 1 > max) out.push(current), (current = '');
    current = current ? `${current}\n${payload}` : payload;
  }
  if (current) out.push(current);
  return out;
}

let server: ConsoleServer;
let baseUrl: string;
let page: Page;
const ran: string[] = [];
let all: string[] = [];

describe.skipIf(!HAS_XSS)('the console escapes what it shows (the XSS corpus, in Chromium)', () => {
  beforeAll(async () => {
    all = payloads();
    server = await startConsoleServer({ csp: false });
    baseUrl = server.baseUrl;
    await seed(server.api, all);
    page = await (await server.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('dialog', (dialog) => (ran.push(`dialog: ${dialog.message()}`), void dialog.dismiss()));
    await page.addInitScript(() => {
      for (const name of ['alert', 'prompt', 'confirm', 'print'] as const) {
        (window as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
          (window as unknown as { __xss: string[] }).__xss.push(`${name}(${args.join(',')})`);
        };
      }
      (window as unknown as { __xss: string[] }).__xss = [];
    });
    await page.goto(await server.signInUrl());
    await page.locator('kb-admin-overview h2').waitFor();
  }, 180_000);

  afterAll(() => server?.close());

  /** Nothing ran, and nothing in the console's shadow trees was made from a payload. */
  async function expectInert(where: string): Promise<void> {
    const found = await page.evaluate(() => {
      const bad: string[] = [];
      // None of the console's templates makes these; a payload parsed as HTML would.
      const foreign = new Set([
        'script',
        'img',
        'image',
        'iframe',
        'object',
        'embed',
        'video',
        'audio',
        'frame',
        'frameset',
        'base',
        'meta',
        'link',
        'math',
        'marquee',
        'isindex',
        'applet',
        'details',
      ]);
      const walk = (root: ShadowRoot) => {
        for (const el of root.querySelectorAll('*')) {
          const tag = el.tagName.toLowerCase();
          if (foreign.has(tag)) bad.push(`<${tag}>`);
          for (const attr of el.getAttributeNames()) if (/^on/i.test(attr)) bad.push(`${tag}[${attr}]`);
          const href =
            el.getAttribute('href') ??
            el.getAttribute('xlink:href') ??
            el.getAttribute('src') ??
            el.getAttribute('action');
          if (href && /^\s*(javascript|data|vbscript):/i.test(href)) bad.push(`${tag}[href=${href.slice(0, 30)}]`);
          if (el.shadowRoot) walk(el.shadowRoot);
        }
      };
      walk(document.querySelector('kb-admin')!.shadowRoot!);
      if (document.body.children.length !== 1) bad.push(`body has ${document.body.children.length} children`);
      return { bad, calls: (window as unknown as { __xss: string[] }).__xss };
    });
    expect([...ran, ...found.calls, ...found.bad], where).toEqual([]);
  }

  /** Clicks Next until the last page, checking each page. */
  async function everyPage(view: string, itemSelector: string, expectText: string): Promise<number> {
    let pages = 0;
    for (;;) {
      await page.locator(`${view} ${itemSelector}`).first().waitFor();
      await page.waitForLoadState('networkidle');
      pages += 1;
      await expectInert(`${view}, page ${pages}`);
      if (pages === 1)
        expect(await page.locator(view).evaluate((el) => el.shadowRoot!.textContent)).toContain(expectText);
      const next = page.locator(`${view} .pager button`, { hasText: 'Next' });
      if (await next.isDisabled()) return pages;
      const before = await page.locator(`${view} .pager span`).textContent();
      await next.click();
      await expect.poll(() => page.locator(`${view} .pager span`).textContent()).not.toBe(before);
    }
  }

  it('content gaps (refused questions)', async () => {
    await page.goto(`${baseUrl}/admin/#/gaps`);
    await page.locator('kb-admin-gaps select').selectOption('all');
    const pages = await everyPage('kb-admin-gaps', 'tbody tr', '<script>');
    console.log(`[xss] gaps: ${pages} pages`);
  });

  it('conversations (questions, answers, 👎 comments, citation titles and links)', async () => {
    await page.goto(`${baseUrl}/admin/#/conversations`);
    const pages = await everyPage('kb-admin-conversations', 'article', 'onerror=');
    console.log(`[xss] conversations: ${pages} pages`);
  });

  it('documents (titles, sources and links)', async () => {
    await page.goto(`${baseUrl}/admin/#/documents`);
    const pages = await everyPage('kb-admin-documents', 'tbody tr', '<');
    console.log(`[xss] documents: ${pages} pages`);
  });

  it('try a question (the question, candidate titles and excerpts, the answer)', async () => {
    for (const question of batches(all, 2000).slice(0, 12)) {
      await page.goto(`${baseUrl}/admin/#/try?q=${encodeURIComponent(question)}`);
      await expect.poll(() => page.locator('kb-admin-try textarea').inputValue()).toBe(question);
      await page.locator('kb-admin-try table').waitFor();
      await page.waitForLoadState('networkidle');
      await expectInert('try');
    }
  });
});

/** Every payload as a gap's question, a visitor's question and its answer, a 👎 comment, a document title. */
async function seed(api: TestApi, all: string[]): Promise<void> {
  const db = api.store.db;
  const user = await api.store.createAnonymousUser();
  for (const [i, text] of batches(all, 500).entries()) {
    await db.query('insert into content_gaps (question_key, question, reason, asked) values ($1, $2, $3, $4)', [
      `k${i}:${text}`.toLowerCase(),
      text,
      'no_evidence',
      1,
    ]);
  }
  const questions = batches(all, 2000);
  const comments = batches(all, 1000);
  for (const [i, question] of questions.entries()) {
    const session = (
      await db.query<{ id: string }>('insert into chat_sessions (user_id, title) values ($1, $2) returning id', [
        user,
        question.slice(0, 200),
      ])
    ).rows[0]!.id;
    const q = (
      await db.query<{ id: string }>(
        `insert into chat_messages (session_id, role, content) values ($1, 'user', $2) returning id`,
        [session, question],
      )
    ).rows[0]!.id;
    const citations = [
      {
        n: 1,
        chunk_id: crypto.randomUUID(),
        document_id: crypto.randomUUID(),
        title: question.slice(0, 300),
        page: null,
        section: question.slice(300, 500),
        url: i % 2 ? 'javascript:alert(1)' : question.slice(0, 100),
        similarity: 0.5,
      },
    ];
    const a = (
      await db.query<{ id: string }>(
        `insert into chat_messages (session_id, role, content, citations, reply_to, meta) values ($1, 'assistant', $2, $3, $4, $5) returning id`,
        [
          session,
          question,
          JSON.stringify(citations),
          q,
          JSON.stringify({ kind: i % 3 ? 'answer' : 'refusal', confidence: 'high', mode: 'hybrid' }),
        ],
      )
    ).rows[0]!.id;
    await db.query('insert into chat_feedback (message_id, user_id, rating, comment) values ($1, $2, -1, $3)', [
      a,
      user,
      comments[i % comments.length]!,
    ]);
  }
  for (const [i, title] of batches(all, 300).entries()) {
    await api.store.ingestDocument({
      source: `xss/${i}`,
      name: title,
      meta: { url: i % 2 ? 'javascript:alert(1)' : title.slice(0, 80), source_type: 'markdown' },
      checksum: String(i),
      model: 'test-model',
      chunks: [{ content: title, meta: { section: title.slice(0, 100) }, embedding: basis(i % 300) }],
    });
  }
}
