/**
 * URL ingestion against a real HTTP server on 127.0.0.1: sitemap and link crawling, robots.txt, retries
 * with backoff, canonical URLs as citations, the page limit, --prune of pages that disappeared, plus the
 * document lifecycle (list, disable, delete, dry run, reindex) on the same PGlite store.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteStore, type PgliteStore } from '../store/pglite.ts';
import { migratedTemplate } from '../testing/pglite-template.ts';
import { codeFrontMatter } from '../testing/front-matter-attack.ts';
import { createEmbedder, type Embedder } from './embedder.ts';
import { MODEL, MODEL_DIR } from './fixtures/paths.ts';
import { ingest } from './pipeline.ts';
import { reindex } from './reindex.ts';

let server: Server;
let base: string;
let store: PgliteStore;
let embedder: Embedder;
let pdfBytes: Uint8Array;
const hits = new Map<string, number>();
const pages = new Map<string, { type: string; body: string | Uint8Array; status?: number }>();

const html = (title: string, body: string, head = '') =>
  `<html lang="en"><head><title>${title}</title>${head}</head><body><nav><a href="/private/admin">Admin</a></nav><main>${body}</main></body></html>`;

function site(): void {
  pages.clear();
  pages.set('/robots.txt', { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\n' });
  pages.set('/', {
    type: 'text/html',
    body: html(
      'Home',
      '<h1>Welcome</h1><p>Start with <a href="/billing">billing</a> or <a href="/guide.pdf">the guide</a>.</p><a href="https://elsewhere.example/x">away</a>',
    ),
  });
  pages.set('/billing', {
    type: 'text/html; charset=utf-8',
    body: html(
      'Billing',
      '<h1>Billing</h1><h2>Refunds</h2><p>Refunds are processed within ten business days.</p><a href="/billing?ref=nav#top">self</a> <a href="/flaky">flaky</a>',
      '<link rel="canonical" href="/docs/billing">',
    ),
  });
  pages.set('/flaky', {
    type: 'text/html',
    body: html('Flaky', '<p>Webhooks retry five times with exponential backoff.</p>'),
  });
  pages.set('/private/admin', { type: 'text/html', body: html('Admin', '<p>SECRET ADMIN PAGE</p>') });
  pages.set('/guide.pdf', { type: 'application/pdf', body: pdfBytes });
  pages.set('/sitemap.xml', {
    type: 'application/xml',
    body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base}/billing</loc></url><url><loc>${base}/flaky</loc></url><url><loc>${base}/private/admin</loc></url></urlset>`,
  });
}

beforeAll(async () => {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage().drawText('The onboarding guide explains how to invite your team.', { x: 50, y: 700, size: 12, font });
  pdfBytes = await pdf.save();
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = url.pathname;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    // /flaky fails twice with 503, then works: the crawler must retry.
    if (key === '/flaky' && (hits.get(key) ?? 0) % 3 !== 0) {
      res.writeHead(503, { 'retry-after': '0' }).end('busy');
      return;
    }
    const page = pages.get(key);
    if (!page) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(page.status ?? 200, { 'content-type': page.type }).end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site();
  [store, embedder] = await Promise.all([
    openPgliteStore(null, { loadDataDir: await migratedTemplate() }),
    createEmbedder({ model: MODEL, modelDir: MODEL_DIR }),
  ]);
});

afterAll(async () => {
  await store?.close();
  await new Promise((resolve) => server?.close(resolve));
});

// The test site is on 127.0.0.1, which the crawler refuses by default (crawl-guard.test.ts): these tests
// crawl it as `npm run ingest -- --allow-private` would.
const crawlOptions = { backoffMs: 5, concurrency: 2, allowPrivate: true };
const sources = async () => (await store.listDocuments()).map((d) => d.source).sort();

describe('ingesting URLs', () => {
  it('crawls same-origin links, obeys robots.txt, retries, and cites canonical URLs', async () => {
    const summary = await ingest({ store, embedder, model: MODEL, inputs: [`${base}/`], crawl: crawlOptions });
    expect(summary.failed).toEqual([]);
    expect(await sources()).toEqual([`${base}/`, `${base}/docs/billing`, `${base}/flaky`, `${base}/guide.pdf`]);
    expect(summary.skipped).toEqual([`${base}/private/admin (robots.txt)`]);
    expect(hits.get('/private/admin')).toBeUndefined();
    expect(hits.get('/flaky')).toBe(3);
    const docs = await store.listDocuments();
    const billing = docs.find((d) => d.source === `${base}/docs/billing`)!;
    expect(billing.meta).toMatchObject({
      url: `${base}/docs/billing`,
      source_type: 'html',
      language: 'en',
      fetched_url: `${base}/billing`,
    });
    expect(docs.find((d) => d.source === `${base}/guide.pdf`)!.meta).toMatchObject({ source_type: 'pdf' });
    const [vector] = await embedder.embed(['How long do refunds take?']);
    const [best] = await store.matchChunks(
      { sub: await store.createAnonymousUser(), role: 'authenticated' },
      vector!,
      0.1,
      1,
    );
    expect(best).toMatchObject({ document_url: `${base}/docs/billing` });
    expect(best!.meta).toMatchObject({ url: `${base}/docs/billing#refunds`, section: 'Billing › Refunds' });
    const pdfChunk = (
      await store.db.query<{ meta: { page: number } }>(
        "select c.meta from kb_chunks c join kb_documents d on d.id = c.document_id where d.source like '%guide.pdf'",
      )
    ).rows;
    expect(pdfChunk.map((r) => r.meta.page)).toEqual([1]);
  });

  it('reads a sitemap, and stops at the page limit without pruning', async () => {
    hits.clear();
    const summary = await ingest({
      store,
      embedder,
      model: MODEL,
      inputs: [`${base}/sitemap.xml`],
      crawl: { ...crawlOptions, maxPages: 1 },
      prune: true,
    });
    expect(summary).toMatchObject({ unchanged: 1, failed: [], pruned: [] });
    expect(hits.get('/flaky')).toBeUndefined();
  });

  it('prunes pages that disappeared (dry run first), keeping pages that failed for other reasons', async () => {
    pages.delete('/guide.pdf');
    pages.set('/', {
      type: 'text/html',
      body: html(
        'Home',
        '<h1>Welcome</h1><p>Start with <a href="/billing">billing</a> or <a href="/guide.pdf">the old guide</a>.</p>',
      ),
    });
    const dry = await ingest({
      store,
      embedder,
      model: MODEL,
      inputs: [`${base}/`],
      crawl: crawlOptions,
      prune: true,
      dryRun: true,
    });
    expect(dry).toMatchObject({ dry_run: true, updated: 1, pruned: [`${base}/guide.pdf`] });
    expect(dry.failed).toEqual([{ source: `${base}/guide.pdf`, error: 'HTTP 404' }]);
    expect(await sources()).toContain(`${base}/guide.pdf`);
    const summary = await ingest({
      store,
      embedder,
      model: MODEL,
      inputs: [`${base}/`],
      crawl: crawlOptions,
      prune: true,
    });
    expect(summary).toMatchObject({ updated: 1, unchanged: 2, pruned: [`${base}/guide.pdf`] });
    expect(await sources()).toEqual([`${base}/`, `${base}/docs/billing`, `${base}/flaky`]);
  });
});

describe('managing documents', () => {
  it('lists, disables (never retrieved, stays disabled on re-ingest), enables and deletes', async () => {
    const docs = await store.listDocuments();
    const billing = docs.find((d) => d.source.endsWith('/docs/billing'))!;
    expect(billing).toMatchObject({ status: 'ready', enabled: true, name: 'Billing' });
    expect(billing.chunks).toBeGreaterThan(0);
    const [vector] = await embedder.embed(['How long do refunds take?']);
    const search = async () =>
      (await store.matchChunks({ sub: await store.createAnonymousUser(), role: 'authenticated' }, vector!, 0, 10)).map(
        (m) => m.document_id,
      );

    expect(await store.setDocumentEnabled(billing.id, false)).toBe(true);
    expect(await search()).not.toContain(billing.id);
    pages.set('/billing', {
      type: 'text/html',
      body: html('Billing', '<h1>Billing</h1><h2>Refunds</h2><p>Refunds now take five days.</p>'),
    });
    await ingest({
      store,
      embedder,
      model: MODEL,
      inputs: [`${base}/billing`],
      crawl: { ...crawlOptions, maxPages: 1 },
    });
    expect((await store.listDocuments()).find((d) => d.id === billing.id)).toMatchObject({ enabled: false });
    expect(await search()).not.toContain(billing.id);

    expect(await store.setDocumentEnabled(billing.id, true)).toBe(true);
    expect(await search()).toContain(billing.id);
    expect(await store.deleteDocument(billing.id)).toBe(true);
    expect(await store.deleteDocument(billing.id)).toBe(false);
    expect(await store.setDocumentEnabled(crypto.randomUUID(), true)).toBe(false);
    expect((await store.listDocuments()).map((d) => d.id)).not.toContain(billing.id);
  });

  it('reindex re-embeds exactly the rows of another model', async () => {
    await store.db.query(
      "update kb_embeddings set model = 'old/model' where chunk_id in (select id from kb_chunks limit 1)",
    );
    expect(await store.staleDocuments(MODEL)).toHaveLength(1);
    const dry = await reindex({ store, model: MODEL, embedder: async () => embedder, dryRun: true });
    expect(dry).toMatchObject({ documents: 1, chunks: 1 });
    const summary = await reindex({ store, model: MODEL, embedder: async () => embedder });
    expect(summary.documents).toBe(1);
    expect(await store.staleDocuments(MODEL)).toEqual([]);
    expect((await store.db.query('select 1 from kb_embeddings where model <> $1', [MODEL])).rows).toHaveLength(0);
  });
});

describe('crawled Markdown whose front matter is code', () => {
  it("refuses ---js (text/markdown) and ---javascript (a .md path as text/plain) without running it; the sitemap's other page is stored", async () => {
    const markers = ['js', 'javascript'].map((language) =>
      path.join(tmpdir(), `kb-crawl-${language}-${process.pid}-${Date.now()}.ran`),
    );
    pages.set('/hostile/js', { type: 'text/markdown; charset=utf-8', body: codeFrontMatter('js', markers[0]!) });
    pages.set('/hostile/javascript.md', { type: 'text/plain', body: codeFrontMatter('javascript', markers[1]!) });
    pages.set('/hostile/good.md', {
      type: 'text/markdown',
      body: '# Shipping\n\nWe ship to every planet of the solar system.\n',
    });
    const urls = ['/hostile/js', '/hostile/javascript.md', '/hostile/good.md']
      .map((p) => `<url><loc>${base}${p}</loc></url>`)
      .join('');
    pages.set('/hostile/sitemap.xml', {
      type: 'application/xml',
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`,
    });

    const summary = await ingest({
      store,
      embedder,
      model: MODEL,
      inputs: [`${base}/hostile/sitemap.xml`],
      crawl: crawlOptions,
    });
    for (const marker of markers) expect(existsSync(marker), marker).toBe(false);
    expect(summary.failed).toEqual([
      { source: `${base}/hostile/js`, error: "front matter in 'js' is refused: only YAML front matter is read" },
      {
        source: `${base}/hostile/javascript.md`,
        error: "front matter in 'javascript' is refused: only YAML front matter is read",
      },
    ]);
    expect(summary.added).toBe(1);
    expect(await sources()).toContain(`${base}/hostile/good.md`);
    expect(await sources()).not.toContain(`${base}/hostile/js`);
    expect(await sources()).not.toContain(`${base}/hostile/javascript.md`);
  });
});
