/**
 * What a crawl refuses, with the reason it reports per URL: internal addresses (before any connection),
 * redirects into them, sitemap entries on another origin, bodies over the caps. Only loopback servers are
 * used; addresses that must not be reached at all (10.x, 169.254.169.254) go to a `fetch` that records the
 * call and sends nothing.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { publicAddressesOnly } from './address-policy.ts';
import { crawl, type CrawledPage, type CrawlOptions } from './crawl.ts';
import type { FetchLike } from './guarded-fetch.ts';

const open: Server[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections())));
});

async function serve(
  handler: RequestListener,
  host = '127.0.0.1',
): Promise<{ base: string; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://${host}:${port}`, port, hits };
}

const html = (body: string) => `<html><head><title>T</title></head><body><main>${body}</main></body></html>`;
const options: CrawlOptions = { backoffMs: 1, retries: 0 };

async function run(urls: string[], extra: CrawlOptions = {}) {
  const pages: CrawledPage[] = [];
  const result = await crawl(urls, { ...options, ...extra }, async (page) => void pages.push(page));
  return { ...result, pages: pages.map((p) => p.url) };
}

describe('internal addresses are refused by default, before connecting', () => {
  it('127.0.0.1: nothing reaches the server listening there', async () => {
    const { base, hits } = await serve((_, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('internal')),
    );
    const result = await run([`${base}/`]);
    expect(result.failed).toEqual([
      { source: `${base}/`, error: 'refused: 127.0.0.1 is a loopback address', gone: false },
    ]);
    expect(result.pages).toEqual([]);
    expect(hits).toEqual([]);
  });

  it.each([
    ['http://[::1]:8080/', 'refused: [::1] is a loopback address'],
    ['http://10.0.0.1/docs', 'refused: 10.0.0.1 is a private address'],
    ['http://169.254.169.254/latest/meta-data/', 'refused: 169.254.169.254 is a link-local address (cloud metadata)'],
    ['http://[::ffff:127.0.0.1]/', 'refused: [::ffff:7f00:1] is a loopback address (IPv4 127.0.0.1)'],
    [
      'http://[::ffff:a9fe:a9fe]/',
      'refused: [::ffff:a9fe:a9fe] is a link-local address (cloud metadata) (IPv4 169.254.169.254)',
    ],
    ['http://2130706433/', 'refused: 127.0.0.1 is a loopback address'],
    ['http://100.64.1.1/', 'refused: 100.64.1.1 is a carrier-grade NAT address'],
    ['http://[fd00::1]/', 'refused: [fd00::1] is a unique-local address'],
  ])('%s', async (url, reason) => {
    const calls: string[] = [];
    const spy: FetchLike = async (target) => {
      calls.push(target);
      throw new Error('a test never sends traffic here');
    };
    const result = await run([url], { fetch: spy });
    expect(result.failed).toEqual([{ source: new URL(url).toString(), error: reason, gone: false }]);
    expect(calls).toEqual([]);
  });

  it('a sitemap on a loopback address is refused too', async () => {
    const { base, hits } = await serve((_, res) => res.end('<urlset/>'));
    const result = await run([`${base}/sitemap.xml`]);
    expect(result.failed).toEqual([
      { source: `${base}/sitemap.xml`, error: 'refused: 127.0.0.1 is a loopback address', gone: false },
    ]);
    expect(hits).toEqual([]);
  });
});

describe('a public-looking site that redirects inside', () => {
  it('is refused at the redirect, and the internal URL is never requested', async () => {
    const secret = await serve((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html('SECRET')));
    // docs.stand-in.test stands in for a public docs site: no public host can be reached from the test
    // machine, so it is served on 127.0.0.2 and the policy treats that one address as public. Every other
    // address keeps the real policy — 127.0.0.1, where the redirect points, among them.
    const standIn = await serve((req, res) => {
      if (req.url === '/robots.txt') return void res.writeHead(404).end();
      if (req.url === '/')
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(html('<a href="/moved">moved</a>'));
      res.writeHead(302, { location: `${secret.base}/secret` }).end();
    }, '127.0.0.2');
    const start = `http://docs.stand-in.test:${standIn.port}/`;
    const result = await run([start], {
      resolve: async (host) => (host === 'docs.stand-in.test' ? ['127.0.0.2'] : []),
      addressPolicy: (address) => (address === '127.0.0.2' ? null : publicAddressesOnly(address)),
    });
    expect(result.pages).toEqual([start]);
    expect(result.failed).toEqual([
      {
        source: `${start}moved`,
        error: `refused: redirect to ${secret.base}/secret (127.0.0.1 is a loopback address)`,
        gone: false,
      },
    ]);
    expect(standIn.hits).toEqual(['/robots.txt', '/', '/moved']);
    expect(secret.hits).toEqual([]);
  });
});

describe('sitemaps', () => {
  it('take entries on their own origin only; others are skipped, reported and never requested', async () => {
    const other = await serve(
      (_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html('elsewhere')),
      '127.0.0.2',
    );
    const site = await serve((req, res) => {
      const urls = (locs: string[]) => locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('');
      if (req.url === '/sitemap.xml')
        return void res.end(`<urlset>${urls([`${site.base}/a`, `${other.base}/b`])}</urlset>`);
      if (req.url === '/sitemap-index.xml')
        return void res.end(
          `<sitemapindex><sitemap><loc>${other.base}/sitemap.xml</loc></sitemap><sitemap><loc>${site.base}/sitemap.xml</loc></sitemap></sitemapindex>`,
        );
      if (req.url === '/a') return void res.writeHead(200, { 'content-type': 'text/html' }).end(html('a'));
      res.writeHead(404).end();
    });
    // The origin rule is what is tested here, so both loopback servers may be reached.
    const result = await run([`${site.base}/sitemap-index.xml`], { allowPrivate: true });
    expect(result.pages).toEqual([`${site.base}/a`]);
    expect(result.skipped).toEqual([
      {
        source: `${other.base}/sitemap.xml`,
        reason: `listed by ${site.base}/sitemap-index.xml, another origin than the sitemap's`,
      },
      { source: `${other.base}/b`, reason: `listed by ${site.base}/sitemap.xml, another origin than the sitemap's` },
    ]);
    expect(result.origins).toEqual([`${site.base}/`]);
    expect(other.hits).toEqual([]);
  });
});

describe('byte caps', () => {
  const sized = (bytes: number) => html('x'.repeat(bytes));

  it('a page over the per-response cap fails with its reason; the others are read', async () => {
    const { base } = await serve((req, res) => {
      if (req.url === '/')
        return void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(html('<a href="/big">big</a><a href="/small">small</a>'));
      if (req.url === '/big') return void res.writeHead(200, { 'content-type': 'text/html' }).end(sized(100 * 1024));
      if (req.url === '/small') return void res.writeHead(200, { 'content-type': 'text/html' }).end(sized(1024));
      res.writeHead(404).end();
    });
    const result = await run([`${base}/`], { allowPrivate: true, maxResponseBytes: 64 * 1024 });
    expect(result.pages).toEqual([`${base}/`, `${base}/small`]);
    expect(result.failed).toEqual([{ source: `${base}/big`, error: 'too large: over 64 KiB', gone: false }]);
    expect(result.limitReached).toBe(false);
  });

  it('the crawl stops at its total, reports where, and counts as limited (so --prune deletes nothing)', async () => {
    const { base, hits } = await serve((req, res) => {
      const n = Number(req.url!.slice(1) || 0);
      if (req.url === '/robots.txt') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end(`${sized(30 * 1024)}<a href="/${n + 1}">next</a>`);
    });
    const result = await run([`${base}/`], { allowPrivate: true, concurrency: 1, maxTotalBytes: 100 * 1024 });
    expect(result.pages).toEqual([`${base}/`, `${base}/1`, `${base}/2`]);
    expect(result.failed).toEqual([
      { source: `${base}/3`, error: "too large: the crawl's total of 100 KiB was reached", gone: false },
    ]);
    expect(result.limitReached).toBe(true);
    expect(hits).toEqual(['/robots.txt', '/', '/1', '/2', '/3']);
  });
});
