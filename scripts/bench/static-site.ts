/**
 * A documentation site for re-crawl benchmarks: the Markdown files of a folder served on 127.0.0.1 as a
 * static host serves them — `text/markdown`, a strong ETag (a hash of the bytes) and Last-Modified (the
 * file's mtime), 304 for a matching If-None-Match (or, without one, an If-Modified-Since not older than
 * the file) — plus `/sitemap.xml` listing every page. `change(n)` edits n pages in memory (a new
 * paragraph, a new ETag and Last-Modified), as a docs deploy would. Counts requests, 200s, 304s and the
 * body bytes sent.
 *
 * Standalone: `npx tsx scripts/bench/static-site.ts <folder> [--port 8080]` serves until Ctrl-C.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';

export interface SiteCounters {
  requests: number;
  ok: number;
  notModified: number;
  /** Response body bytes sent (pages, sitemap, robots.txt), headers not counted. */
  bodyBytes: number;
}

export interface StaticSite {
  url: string;
  /** `<url>/sitemap.xml` */
  sitemap: string;
  pages: number;
  counters: SiteCounters;
  resetCounters(): void;
  /** Edits the first n pages (in sorted order), each a new version with new validators; returns their paths. */
  change(n: number): string[];
  close(): Promise<void>;
}

interface Page {
  body: Buffer;
  etag: string;
  modified: Date;
}

export async function startStaticSite(root: string, port = 0): Promise<StaticSite> {
  const pages = new Map<string, Page>();
  for (const file of await walk(root)) {
    const body = await readFile(file);
    const urlPath = `/${path.relative(root, file).split(path.sep).join('/')}`;
    pages.set(urlPath, { body, etag: etagOf(body), modified: (await stat(file)).mtime });
  }
  const counters: SiteCounters = { requests: 0, ok: 0, notModified: 0, bodyBytes: 0 };
  let origin = '';
  const sitemap = () =>
    Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
        [...pages.keys()].map((p) => `<url><loc>${origin}${encodeURI(p)}</loc></url>`).join('\n') +
        '\n</urlset>\n',
    );

  const server: Server = createServer((req, res) => {
    counters.requests += 1;
    const send = (status: number, headers: Record<string, string>, body?: Buffer) => {
      if (status === 200) counters.ok += 1;
      if (status === 304) counters.notModified += 1;
      counters.bodyBytes += body?.length ?? 0;
      res.writeHead(status, body ? { ...headers, 'content-length': String(body.length) } : headers).end(body);
    };
    const urlPath = decodeURI(new URL(req.url ?? '/', 'http://x').pathname);
    if (urlPath === '/sitemap.xml') return send(200, { 'content-type': 'application/xml' }, sitemap());
    const page = pages.get(urlPath);
    if (!page) return send(404, { 'content-type': 'text/plain' }, Buffer.from('not found'));
    const headers = {
      'content-type': 'text/markdown; charset=utf-8',
      etag: page.etag,
      'last-modified': page.modified.toUTCString(),
    };
    const ifNoneMatch = req.headers['if-none-match'];
    const ifModifiedSince = Date.parse(req.headers['if-modified-since'] ?? '');
    // RFC 9110 §13.2.2: If-None-Match wins over If-Modified-Since; HTTP dates have whole seconds.
    const fresh =
      ifNoneMatch !== undefined
        ? ifNoneMatch.split(',').some((tag) => tag.trim() === page.etag)
        : Number.isFinite(ifModifiedSince) && Math.floor(page.modified.getTime() / 1000) * 1000 <= ifModifiedSince;
    if (fresh) return send(304, headers);
    send(200, headers, page.body);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    sitemap: `${origin}/sitemap.xml`,
    pages: pages.size,
    counters,
    resetCounters: () => Object.assign(counters, { requests: 0, ok: 0, notModified: 0, bodyBytes: 0 }),
    change(n) {
      const changed = [...pages.keys()].sort().slice(0, n);
      const now = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000);
      for (const key of changed) {
        const page = pages.get(key)!;
        const body = Buffer.concat([
          page.body,
          Buffer.from(`\n\nEdited at ${now.toISOString()}: this page changed since the last sync.\n`),
        ]);
        pages.set(key, { body, etag: etagOf(body), modified: now });
      }
      return changed;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(full)));
    else if (/\.(md|mdx)$/i.test(entry.name)) files.push(full);
  }
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { port: { type: 'string', default: '8080' } },
  });
  if (!positionals[0]) {
    console.error('usage: npx tsx scripts/bench/static-site.ts <folder> [--port 8080]');
    process.exit(1);
  }
  const site = await startStaticSite(positionals[0], Number(values.port));
  console.log(`Serving ${site.pages} pages at ${site.url} (sitemap: ${site.sitemap})`);
}
