/**
 * Re-crawling against a real HTTP server on 127.0.0.1 that answers conditional requests: a 304 is unchanged
 * with nothing downloaded, parsed or embedded; a changed page is updated; a removed page goes with --prune;
 * a failing page keeps its stored version and is reported; each source's run is recorded in kb_sync_runs
 * and read back as the console reads it.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPgliteStore, type PgliteStore } from '../store/pglite.ts';
import { migratedTemplate } from '../testing/pglite-template.ts';
import { createEmbedder, type Embedder } from './embedder.ts';
import { MODEL, MODEL_DIR } from './fixtures/paths.ts';
import { CHUNKING_VERSION } from './pipeline.ts';
import { sync } from './sync.ts';

let server: Server;
let base: string;
let store: PgliteStore;
let embedder: Embedder;
let embedCalls = 0;
/** Path → page; `validators` picks which headers the server sends (both by default). */
const pages = new Map<string, { body: string; status?: number; validators?: 'etag' | 'last-modified' | 'none' }>();
const requests: { path: string; status: number; bodyBytes: number; conditional: string[] }[] = [];
const MODIFIED = new Date('2026-11-01T00:00:00Z').toUTCString();

const html = (title: string, text: string, links = '') =>
  `<html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p>${links}</main></body></html>`;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const conditional = ['if-none-match', 'if-modified-since'].filter((h) => req.headers[h] !== undefined);
    const send = (status: number, headers: Record<string, string>, body = '') => {
      requests.push({ path, status, bodyBytes: Buffer.byteLength(body), conditional });
      res.writeHead(status, headers).end(body);
    };
    if (path === '/sitemap.xml') {
      const locs = [...pages.keys()].map((p) => `<url><loc>${base}${p}</loc></url>`).join('');
      return send(
        200,
        { 'content-type': 'application/xml' },
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs}</urlset>`,
      );
    }
    const page = pages.get(path);
    if (!page) return send(404, { 'content-type': 'text/plain' }, 'not found');
    if (page.status) return send(page.status, { 'content-type': 'text/plain' }, 'broken');
    const etag = `"${createHash('sha256').update(page.body).digest('hex').slice(0, 16)}"`;
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
    const mode = page.validators ?? 'both';
    if (mode === 'etag' || mode === 'both') headers.etag = etag;
    if (mode === 'last-modified' || mode === 'both') headers['last-modified'] = MODIFIED;
    const fresh =
      (headers.etag && req.headers['if-none-match'] === etag) ||
      (!req.headers['if-none-match'] && headers['last-modified'] && req.headers['if-modified-since'] === MODIFIED);
    if (fresh) return send(304, headers);
    send(200, headers, page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const real = await createEmbedder({ model: MODEL, modelDir: MODEL_DIR });
  embedder = Object.assign(Object.create(real) as Embedder, {
    embed: (texts: string[]) => ((embedCalls += 1), real.embed(texts)),
  });
});

afterAll(async () => {
  await store?.close();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(async () => {
  await store?.close();
  store = await openPgliteStore(null, { loadDataDir: await migratedTemplate() });
  pages.clear();
  pages.set('/billing', { body: html('Billing', 'Refunds are processed within ten business days.') });
  pages.set('/webhooks', { body: html('Webhooks', 'Webhooks retry five times with exponential backoff.') });
  pages.set('/teams', { body: html('Teams', 'Invite your team from the settings page.'), validators: 'last-modified' });
});

const run = (sources: string[], prune = false) =>
  sync({
    store,
    embedder,
    model: MODEL,
    sources,
    trigger: 'cli',
    prune,
    crawl: { allowPrivate: true, retries: 0, backoffMs: 1, concurrency: 1 },
  });

/** Requests for pages (not the sitemap or robots.txt) since `from`. */
const pageRequests = (from: number) =>
  requests.slice(from).filter((r) => r.path !== '/sitemap.xml' && r.path !== '/robots.txt');

const contentOf = async (source: string) =>
  (
    await store.db.query<{ content: string }>(
      `select c.content from kb_chunks c join kb_documents d on d.id = c.document_id where d.source = $1 order by c.position`,
      [source],
    )
  ).rows
    .map((r) => r.content)
    .join('\n');

describe('sync.finished', () => {
  it('each recorded run ends with a sync.finished event carrying its counts and failed pages; a dry run sends none', async () => {
    pages.set('/webhooks', { body: html('Webhooks', 'gone'), status: 500 });
    const events: { type: string; data: unknown }[] = [];
    const webhooks = { emit: (type: string, data: unknown) => void events.push({ type, data }) } as Parameters<
      typeof sync
    >[0]['webhooks'];
    const options = {
      store,
      embedder,
      model: MODEL,
      trigger: 'cli' as const,
      webhooks,
      crawl: { allowPrivate: true, retries: 0, backoffMs: 1, concurrency: 1 },
    };
    await sync({ ...options, sources: [`${base}/sitemap.xml`] });
    expect(events).toEqual([
      {
        type: 'sync.finished',
        data: expect.objectContaining({
          source: `${base}/sitemap.xml`,
          added: 2,
          updated: 0,
          unchanged: 0,
          removed: 0,
          failed: [{ source: `${base}/webhooks`, error: 'HTTP 500' }],
        }),
      },
    ]);
    const { started_at, finished_at } = events[0]!.data as { started_at: string; finished_at: string };
    expect(Date.parse(finished_at)).toBeGreaterThanOrEqual(Date.parse(started_at));
    await sync({ ...options, sources: [`${base}/sitemap.xml`], dryRun: true });
    expect(events).toHaveLength(1);
  });
});

describe('a re-crawl with conditional requests', () => {
  it('answers 304s with unchanged: no page body downloaded, nothing parsed or embedded', async () => {
    const sitemap = `${base}/sitemap.xml`;
    const [first] = await run([sitemap]);
    expect(first!.counts).toMatchObject({ added: 3, updated: 0, unchanged: 0, failed: 0 });

    const mark = requests.length;
    const embeds = embedCalls;
    const [second] = await run([sitemap]);
    expect(second!.counts).toMatchObject({ added: 0, updated: 0, unchanged: 3, removed: 0, failed: 0, chunks: 0 });
    const again = pageRequests(mark);
    expect(again.map((r) => r.status)).toEqual([304, 304, 304]);
    expect(again.every((r) => r.bodyBytes === 0)).toBe(true);
    // ETag where the page sent one, If-Modified-Since where it sent only Last-Modified.
    expect(again.find((r) => r.path === '/billing')!.conditional).toEqual(['if-none-match', 'if-modified-since']);
    expect(again.find((r) => r.path === '/teams')!.conditional).toEqual(['if-modified-since']);
    expect(embedCalls).toBe(embeds);
    // What the crawl downloaded is the sitemap, no page (robots.txt's 404 body is dropped unread).
    const sitemapBytes = requests.slice(mark).find((r) => r.path === '/sitemap.xml')!.bodyBytes;
    expect(second!.counts.bytes).toBe(sitemapBytes);
  });

  it('updates a changed page, removes a deleted one with --prune, and keeps a failing page as it was', async () => {
    const sitemap = `${base}/sitemap.xml`;
    await run([sitemap]);
    pages.set('/billing', { body: html('Billing', 'Refunds are now processed within three business days.') });
    pages.set('/webhooks', { body: html('Webhooks', 'gone'), status: 500 });
    pages.delete('/teams');
    // The sitemap no longer lists /teams; its old URL answers 404 anyway.
    const [report] = await run([sitemap], true);
    expect(report!.counts).toMatchObject({ added: 0, updated: 1, unchanged: 0, removed: 1, failed: 1 });
    expect(report!.summary.pruned).toEqual([`${base}/teams`]);
    expect(report!.summary.failed).toEqual([{ source: `${base}/webhooks`, error: 'HTTP 500' }]);
    expect(await contentOf(`${base}/billing`)).toContain('three business days');
    // The failed page keeps its stored version (and is not pruned).
    expect(await contentOf(`${base}/webhooks`)).toContain('retry five times');

    // Once the page works again, it is fetched in full (its stored validators are still the old version's).
    pages.set('/webhooks', { body: html('Webhooks', 'Webhooks retry five times with exponential backoff.') });
    const mark = requests.length;
    const [recovered] = await run([sitemap], true);
    expect(recovered!.counts).toMatchObject({ unchanged: 2, failed: 0, removed: 0 });
    expect(
      pageRequests(mark)
        .map((r) => `${r.path} ${r.status}`)
        .sort(),
    ).toEqual(['/billing 304', '/webhooks 304']);
  });

  it('follows the links stored for a page reached by following links when it answers 304', async () => {
    pages.set('/', {
      body: html('Home', 'Start here.', '<a href="/billing">billing</a> <a href="/webhooks">webhooks</a>'),
    });
    const [first] = await run([`${base}/`], true);
    expect(first!.counts).toMatchObject({ added: 3, failed: 0 });
    const mark = requests.length;
    const [second] = await run([`${base}/`], true);
    expect(second!.counts).toMatchObject({ unchanged: 3, removed: 0, failed: 0 });
    expect(pageRequests(mark).map((r) => `${r.path} ${r.status}`)).toEqual(['/ 304', '/billing 304', '/webhooks 304']);
  });

  it('downloads a page again when its stored checksum no longer matches what its validators were stored with', async () => {
    const sitemap = `${base}/sitemap.xml`;
    await run([sitemap]);
    // The stored document changed after its validators were stored (an interrupted or different write): the
    // server would answer 304 to the old validators, but they no longer describe what is stored.
    await store.db.query(`update kb_documents set checksum = 'not-the-stored-one' where source = $1`, [
      `${base}/billing`,
    ]);
    const mark = requests.length;
    const [report] = await run([sitemap]);
    const billing = pageRequests(mark).filter((r) => r.path === '/billing');
    expect(billing.map((r) => `${r.status} ${r.conditional.length}`)).toEqual(['200 0']);
    expect(report!.counts).toMatchObject({ updated: 1, unchanged: 2, failed: 0 });
    const { rows } = await store.db.query<{ checksum: string; cached: string }>(
      `select checksum, http_cache ->> 'checksum' as cached from kb_documents where source = $1`,
      [`${base}/billing`],
    );
    expect(rows[0]!.checksum).not.toBe('not-the-stored-one');
    expect(rows[0]!.cached).toBe(rows[0]!.checksum);
  });

  it('downloads everything again when the stored version was made by another chunker or model', async () => {
    const sitemap = `${base}/sitemap.xml`;
    await run([sitemap]);
    await store.db.query(`update kb_documents set http_cache = jsonb_set(http_cache, '{chunking}', '"chunks-0"')`);
    const mark = requests.length;
    const [report] = await run([sitemap]);
    expect(pageRequests(mark).every((r) => r.status === 200 && r.conditional.length === 0)).toBe(true);
    // Same bytes: unchanged by checksum, and the validators are stored again for next time.
    expect(report!.counts).toMatchObject({ unchanged: 3 });
    const { rows } = await store.db.query<{ n: number }>(
      `select count(*)::int as n from kb_documents where http_cache ->> 'chunking' = $1`,
      [CHUNKING_VERSION],
    );
    expect(rows[0]!.n).toBe(3);
  });
});

describe('kb_sync_runs', () => {
  it('records each source’s run with its counts and failures, read back per source as the console reads it', async () => {
    pages.set('/webhooks', { body: 'x', status: 503 });
    const sitemap = `${base}/sitemap.xml`;
    await run([sitemap, `${base}/missing-page`]);
    const { rows } = await store.db.query<{
      source: string;
      trigger: string;
      finished_at: Date | null;
      counts: Record<string, number>;
      errors: unknown[];
    }>('select source, trigger, finished_at, counts, errors from kb_sync_runs order by started_at');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ source: sitemap, trigger: 'cli', counts: { added: 2, failed: 1, removed: 0 } });
    expect(rows[0]!.finished_at).not.toBeNull();
    expect(rows[0]!.errors).toEqual([{ source: `${base}/webhooks`, error: 'HTTP 503' }]);
    expect(rows[1]).toMatchObject({
      source: `${base}/missing-page`,
      counts: { failed: 1 },
      errors: [{ source: `${base}/missing-page`, error: 'HTTP 404' }],
    });

    pages.set('/webhooks', { body: html('Webhooks', 'Back again.') });
    await run([sitemap]);
    const admin = { sub: await store.createAnonymousUser(), role: 'authenticated', app_metadata: { role: 'admin' } };
    const status = await store.adminSyncStatus(admin);
    expect(status.map((s) => s.source)).toEqual([sitemap, `${base}/missing-page`]);
    expect(status[0]).toMatchObject({ trigger: 'cli', counts: { added: 1, unchanged: 2, failed: 0 }, errors: [] });
    expect(status[0]!.last_success_at).toBe(status[0]!.finished_at);
    expect(status[1]!.last_success_at).toBeNull();
    // A visitor is refused.
    const visitor = { sub: await store.createAnonymousUser(), role: 'authenticated' };
    await expect(store.adminSyncStatus(visitor)).rejects.toMatchObject({ kind: 'forbidden' });
  });

  it('records nothing for a dry run', async () => {
    await sync({
      store,
      embedder,
      model: MODEL,
      sources: [`${base}/sitemap.xml`],
      trigger: 'cli',
      dryRun: true,
      crawl: { allowPrivate: true },
    });
    const { rows } = await store.db.query('select 1 from kb_sync_runs');
    expect(rows).toHaveLength(0);
  });
});
