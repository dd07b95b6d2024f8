/**
 * Fetches documentation from the web: a sitemap (`…/sitemap.xml`, sitemap indexes followed) yields its
 * pages; a page URL yields that page and the same-origin pages it links to, breadth-first. Every origin's
 * robots.txt is read first and obeyed (robots-parser); at most `maxPages` pages are fetched, `concurrency`
 * at a time; network errors, 429 and 5xx are retried with exponential backoff (Retry-After honoured).
 * A page's identity and citation link is its canonical URL (`<link rel="canonical">` when same-origin,
 * else the URL after redirects, without #fragment); pages sharing a canonical URL are read once.
 * Every request goes through the fetch guard (server/ingest/guarded-fetch.ts): public addresses only unless
 * `allowPrivate`, redirects re-checked hop by hop, bodies capped per response and per crawl. A sitemap's
 * entries are taken only on the sitemap's own origin, as links are only followed on the start URLs' origins:
 * a sitemap must not send the crawler to other sites.
 * Re-crawling: a page in `cached` (stored by an earlier run) is asked for with If-None-Match /
 * If-Modified-Since; a 304 answer is handed on as `notModified` with no body read, and, when the page was
 * reached by following links, the links stored for it are followed again.
 */
import { Parser } from 'htmlparser2';
import robotsParser from 'robots-parser';
import type { SourceType } from './document.ts';
import { createFetchGuard, CrawlRefusal, type FetchGuard, type GuardedResponse, type GuardOptions } from './guarded-fetch.ts';

export interface CrawlOptions extends GuardOptions {
  /** Pages fetched at most (sitemaps and robots.txt not counted). Default 500. */
  maxPages?: number;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /** Retries after the first attempt for network errors, 429 and 5xx. Default 3. */
  retries?: number;
  /** First backoff; doubles per retry, ± 25 % jitter. Default 500 ms. */
  backoffMs?: number;
  /** Per request. Default 20 s. */
  timeoutMs?: number;
  userAgent?: string;
  /** Pages stored by an earlier run, by the URL requested: asked "changed since?" instead of downloaded. */
  cached?: ReadonlyMap<string, CachedPage>;
}

/** What an earlier run stored about a page. */
export interface CachedPage {
  /** The document's source (the page's canonical URL). */
  source: string;
  etag: string | null;
  lastModified: string | null;
  /** The same-origin links the page had, for a page reached by following links. */
  links?: string[];
}

export interface CrawledPage {
  /** Canonical URL: the document's source id and citation link. */
  url: string;
  /** The URL the bytes came from (after redirects). */
  fetchedUrl: string;
  format: SourceType;
  bytes: Uint8Array;
  /** The URL asked for (a sitemap entry, a link): what the next run's `cached` is keyed by. */
  requestedUrl: string;
  /** The response's validators, for the next run's conditional request. */
  etag: string | null;
  lastModified: string | null;
  /** A page reached by following links: the same-origin links it has (followed again on a 304). */
  links?: string[];
  /** 304: the stored version is current; `bytes` is empty and nothing was parsed. */
  notModified?: boolean;
}

export interface CrawlResult {
  /** Canonical URLs of every page fetched, including pages whose processing failed afterwards. */
  seen: string[];
  /** Pages that could not be fetched, with the reason (HTTP status, network error, content type). */
  failed: { source: string; error: string; gone: boolean }[];
  /** Pages robots.txt disallows. */
  disallowed: string[];
  /** URLs not queued, with the reason (a sitemap entry on another origin). */
  skipped: { source: string; reason: string }[];
  /** `https://site/` of every origin crawled: the prefixes `--prune` may delete under. */
  origins: string[];
  /** More pages were found than `maxPages` allowed, or the crawl's byte budget ran out. */
  limitReached: boolean;
  /** Body bytes downloaded (pages, robots.txt, sitemaps). */
  bytes: number;
}

export const USER_AGENT = 'kb-chat-ingest';

/**
 * Crawls and hands each page to `onPage` (awaited: a slow consumer slows the crawl down).
 *
 * @example
 * await crawl(['https://docs.example.com/sitemap.xml'], { maxPages: 200 }, async (page) => { … });
 */
export async function crawl(
  startUrls: string[],
  options: CrawlOptions,
  onPage: (page: CrawledPage) => Promise<void>,
): Promise<CrawlResult> {
  const guard = createFetchGuard(options);
  try {
    const result = await crawlWith(guard, startUrls, options, onPage);
    result.bytes = guard.bytesRead;
    return result;
  } finally {
    await guard.close();
  }
}

async function crawlWith(
  guard: FetchGuard,
  startUrls: string[],
  options: CrawlOptions,
  onPage: (page: CrawledPage) => Promise<void>,
): Promise<CrawlResult> {
  const { maxPages = 500, concurrency = 4, userAgent = USER_AGENT } = options;
  const get = (url: string, accept: string, extra: Record<string, string> = {}) => fetchWithRetry(guard, url, accept, options, userAgent, extra);
  const result: CrawlResult = { seen: [], failed: [], disallowed: [], skipped: [], origins: [], limitReached: false, bytes: 0 };
  const robots = new Map<string, Promise<ReturnType<typeof robotsParser> | null>>();
  const queued = new Set<string>();
  const canonicalSeen = new Set<string>();
  const queue: { url: string; follow: boolean }[] = [];
  let fetched = 0;

  const allowed = async (url: URL): Promise<boolean> => {
    if (!robots.has(url.origin)) {
      result.origins.push(`${url.origin}/`);
      const robotsUrl = `${url.origin}/robots.txt`;
      robots.set(
        url.origin,
        get(robotsUrl, 'text/plain')
          .then(async (res) => (res.ok ? robotsParser(robotsUrl, await res.text()) : (await res.discard(), null)))
          // No robots.txt (404) or an unreachable one: nothing is disallowed. (A refused origin is refused
          // again, with its reason, when its page is fetched.)
          .catch(() => null),
      );
    }
    const rules = await robots.get(url.origin);
    return rules?.isAllowed(url.toString(), userAgent) !== false;
  };

  const enqueue = (raw: string, base: string | undefined, follow: boolean): void => {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    url.hash = '';
    const key = url.toString();
    if (queued.has(key)) return;
    queued.add(key);
    queue.push({ url: key, follow });
  };

  // Sitemaps first: they expand into page URLs (followed links: no, the sitemap is the site's own list).
  for (const start of startUrls) {
    if (/sitemap[^/]*\.xml(\?.*)?$/i.test(new URL(start).pathname)) {
      try {
        const skip = (source: string, reason: string) => result.skipped.push({ source, reason });
        for (const loc of await readSitemap(start, get, allowed, skip)) enqueue(loc, start, false);
      } catch (error) {
        result.failed.push({ source: start, error: message(error), gone: false });
      }
    } else enqueue(start, undefined, true);
  }
  const startOrigins = new Set(startUrls.map((u) => new URL(u).origin));

  const visit = async ({ url, follow }: { url: string; follow: boolean }): Promise<void> => {
    if (!(await allowed(new URL(url)))) {
      result.disallowed.push(url);
      return;
    }
    const cached = options.cached?.get(url);
    const conditional: Record<string, string> = {};
    if (cached?.etag) conditional['if-none-match'] = cached.etag;
    if (cached?.lastModified) conditional['if-modified-since'] = cached.lastModified;
    let res: GuardedResponse;
    try {
      res = await get(url, 'text/html, application/pdf;q=0.9, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.1', conditional);
    } catch (error) {
      fail(url, error);
      return;
    }
    if (res.status === 304 && cached) {
      await res.discard();
      if (follow) for (const link of cached.links ?? []) if (startOrigins.has(new URL(link).origin)) enqueue(link, undefined, true);
      if (canonicalSeen.has(cached.source)) return;
      canonicalSeen.add(cached.source);
      result.seen.push(cached.source);
      await onPage({
        url: cached.source, fetchedUrl: res.url, requestedUrl: url, format: 'html', bytes: new Uint8Array(),
        etag: cached.etag, lastModified: cached.lastModified, notModified: true,
      });
      return;
    }
    if (!res.ok) {
      await res.discard();
      result.failed.push({ source: url, error: `HTTP ${res.status}`, gone: res.status === 404 || res.status === 410 });
      return;
    }
    const fetchedUrl = res.url;
    const format = formatOfResponse(res.headers.get('content-type'), fetchedUrl);
    if (!format) {
      await res.discard();
      result.failed.push({ source: url, error: `unsupported content type ${res.headers.get('content-type') ?? '(none)'}`, gone: false });
      return;
    }
    let bytes: Uint8Array;
    try {
      bytes = await res.bytes();
    } catch (error) {
      fail(url, error);
      return;
    }
    let canonical = stripHash(fetchedUrl);
    let followed: string[] | undefined;
    if (format === 'html') {
      const { links, canonical: declared } = scanHtml(new TextDecoder().decode(bytes));
      const resolved = declared ? safeUrl(declared, fetchedUrl) : null;
      if (resolved && resolved.origin === new URL(fetchedUrl).origin) canonical = stripHash(resolved.toString());
      if (follow) {
        const targets = new Set<string>();
        for (const link of links) {
          const target = safeUrl(link, fetchedUrl);
          if (target && startOrigins.has(target.origin)) targets.add(target.toString());
        }
        followed = [...targets];
        for (const target of followed) enqueue(target, undefined, true);
      }
    }
    if (canonicalSeen.has(canonical)) return;
    canonicalSeen.add(canonical);
    result.seen.push(canonical);
    await onPage({
      url: canonical, fetchedUrl, requestedUrl: url, format, bytes,
      etag: res.headers.get('etag'), lastModified: res.headers.get('last-modified'),
      ...(followed ? { links: followed } : {}),
    });
  };

  const fail = (url: string, error: unknown): void => {
    result.failed.push({ source: url, error: message(error), gone: false });
    // The crawl's byte budget is spent: what is still queued is not fetched (and --prune keeps what it
    // did not see, as after the page limit).
    if (guard.exhausted) {
      result.limitReached = true;
      queue.length = 0;
    }
  };

  // `concurrency` loops pull from one queue; links found while crawling join its end (breadth-first).
  let active = 0;
  await new Promise<void>((resolve) => {
    const pump = (): void => {
      while (active < concurrency && queue.length > 0) {
        if (fetched >= maxPages || guard.exhausted) {
          result.limitReached = true;
          queue.length = 0;
          break;
        }
        fetched += 1;
        active += 1;
        void visit(queue.shift()!)
          .catch((error) => result.failed.push({ source: 'crawl', error: message(error), gone: false }))
          .finally(() => {
            active -= 1;
            pump();
          });
      }
      if (active === 0 && queue.length === 0) resolve();
    };
    pump();
  });
  return result;
}

async function readSitemap(
  url: string,
  get: (url: string, accept: string) => Promise<GuardedResponse>,
  allowed: (url: URL) => Promise<boolean>,
  skip: (source: string, reason: string) => void,
  depth = 0,
): Promise<string[]> {
  const res = await get(url, 'application/xml, text/xml');
  if (!res.ok) {
    await res.discard();
    throw new Error(`sitemap: HTTP ${res.status}`);
  }
  const xml = await res.text();
  const locs: string[] = [];
  let inLoc = false;
  let text = '';
  let index = false;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'sitemapindex') index = true;
        if (name === 'loc') ((inLoc = true), (text = ''));
      },
      ontext(data) {
        if (inLoc) text += data;
      },
      onclosetag(name) {
        if (name === 'loc') ((inLoc = false), locs.push(text.trim()));
      },
    },
    { xmlMode: true },
  );
  parser.end(xml);
  // Entries (pages or nested sitemaps) only on the sitemap's own origin.
  const origin = new URL(url).origin;
  const sameOrigin: URL[] = [];
  for (const loc of locs) {
    const target = safeUrl(loc, url);
    if (!target) continue;
    if (target.origin === origin) sameOrigin.push(target);
    else skip(target.toString(), `listed by ${url}, another origin than the sitemap's`);
  }
  if (!index) return sameOrigin.map((loc) => loc.toString());
  if (depth >= 2) return [];
  const nested = await Promise.all(
    sameOrigin.map(async (loc) => ((await allowed(loc)) ? readSitemap(loc.toString(), get, allowed, skip, depth + 1) : [])),
  );
  return nested.flat();
}

/**
 * GET through the guard with retries: network errors, 408, 429 and 5xx; exponential backoff with jitter,
 * Retry-After ≤ 30 s. A refusal is final (asking again would get the same answer).
 */
async function fetchWithRetry(
  guard: FetchGuard,
  url: string,
  accept: string,
  options: CrawlOptions,
  userAgent: string,
  extra: Record<string, string> = {},
): Promise<GuardedResponse> {
  const { retries = 3, backoffMs = 500, timeoutMs = 20_000 } = options;
  for (let attempt = 0; ; attempt++) {
    let res: GuardedResponse | null = null;
    let failure: unknown = null;
    try {
      res = await guard.fetch(url, { headers: { ...extra, 'user-agent': userAgent, accept }, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      if (error instanceof CrawlRefusal) throw error;
      failure = error;
    }
    const retryable = res === null || res.status === 408 || res.status === 429 || res.status >= 500;
    if (!retryable || attempt >= retries) {
      if (res) return res;
      throw new Error(`fetch failed: ${message(failure)}`);
    }
    const retryAfter = Number(res?.headers.get('retry-after'));
    await res?.discard();
    const delay = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 30_000) : backoffMs * 2 ** attempt * (0.75 + Math.random() / 2);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function formatOfResponse(contentType: string | null, url: string): SourceType | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/pdf') return 'pdf';
  if (type === 'text/markdown' || type === 'text/x-markdown') return 'markdown';
  const path = new URL(url).pathname.toLowerCase();
  if (/\.(md|mdx|markdown)$/.test(path) && (type === 'text/plain' || type === '')) return 'markdown';
  if (type === 'text/plain') return 'text';
  return null;
}

/** Links and the canonical URL of an HTML page, in one streaming pass. */
function scanHtml(html: string): { links: string[]; canonical: string | null } {
  const links: string[] = [];
  let canonical: string | null = null;
  let nofollow = false;
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name === 'a' && attrs.href && !/\bnofollow\b/i.test(attrs.rel ?? '')) links.push(attrs.href);
      if (name === 'link' && /\bcanonical\b/i.test(attrs.rel ?? '') && attrs.href && canonical === null) canonical = attrs.href;
      if (name === 'meta' && attrs.name?.toLowerCase() === 'robots' && /\bnofollow\b/i.test(attrs.content ?? '')) nofollow = true;
    },
  });
  parser.end(html);
  return { links: nofollow ? [] : links, canonical };
}

function safeUrl(raw: string, base: string): URL | null {
  try {
    const url = new URL(raw, base);
    url.hash = '';
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

function stripHash(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.toString();
}

function message(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
