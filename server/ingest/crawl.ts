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
import robotsParser from 'robots-parser';
import type { SourceType } from './document.ts';
import { fetchWithRetry, message } from './fetch-retry.ts';
import { createFetchGuard, type FetchGuard, type GuardedResponse, type GuardOptions } from './guarded-fetch.ts';
import { formatOfResponse, safeUrl, scanHtml, stripHash } from './page-scan.ts';
import { readSitemap } from './sitemap.ts';

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

const PAGE_ACCEPT = 'text/html, application/pdf;q=0.9, text/markdown;q=0.9, text/plain;q=0.8, */*;q=0.1';

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
  // `allowPrivate` opens the private network only to the hosts the operator gave (the command line,
  // KB_SYNC_SOURCES): what their pages link or redirect to elsewhere is checked as public.
  const guard = createFetchGuard({ ...options, privateHosts: options.privateHosts ?? hostsOf(startUrls) });
  try {
    const result = await new Crawl(guard, options, onPage).run(startUrls);
    result.bytes = guard.bytesRead;
    return result;
  } finally {
    await guard.close();
  }
}

function hostsOf(urls: string[]): string[] {
  return urls.flatMap((url) => {
    try {
      return [new URL(url).hostname];
    } catch {
      return [];
    }
  });
}

type Queued = { url: string; follow: boolean };
type RobotsRules = ReturnType<typeof robotsParser>;

/** One crawl's state: the queue, what was seen, each origin's robots.txt, and the result being built. */
class Crawl {
  readonly result: CrawlResult = {
    seen: [],
    failed: [],
    disallowed: [],
    skipped: [],
    origins: [],
    limitReached: false,
    bytes: 0,
  };
  private readonly robots = new Map<string, Promise<RobotsRules | null>>();
  private readonly queued = new Set<string>();
  private readonly canonicalSeen = new Set<string>();
  private readonly queue: Queued[] = [];
  /** Links are followed only to the start URLs' origins. */
  private startOrigins = new Set<string>();
  private readonly userAgent: string;

  constructor(
    private readonly guard: FetchGuard,
    private readonly options: CrawlOptions,
    private readonly onPage: (page: CrawledPage) => Promise<void>,
  ) {
    this.userAgent = options.userAgent ?? USER_AGENT;
  }

  async run(startUrls: string[]): Promise<CrawlResult> {
    await this.queueStartUrls(startUrls);
    this.startOrigins = new Set(startUrls.map((u) => new URL(u).origin));
    await this.drain();
    return this.result;
  }

  private get(url: string, accept: string, extra: Record<string, string> = {}): Promise<GuardedResponse> {
    return fetchWithRetry(this.guard, url, accept, this.options, this.userAgent, extra);
  }

  /** Sitemaps first: they expand into page URLs (followed links: no, the sitemap is the site's own list). */
  private async queueStartUrls(startUrls: string[]): Promise<void> {
    for (const start of startUrls) {
      if (/sitemap[^/]*\.xml(\?.*)?$/i.test(new URL(start).pathname)) {
        try {
          const skip = (source: string, reason: string) => this.result.skipped.push({ source, reason });
          const get = (url: string, accept: string) => this.get(url, accept);
          for (const loc of await readSitemap(start, get, (url) => this.allowed(url), skip))
            this.enqueue(loc, start, false);
        } catch (error) {
          this.result.failed.push({ source: start, error: message(error), gone: false });
        }
      } else this.enqueue(start, undefined, true);
    }
  }

  /** What the origin's robots.txt says about `url` (read once per origin, which also counts the origin as crawled). */
  private async allowed(url: URL): Promise<boolean> {
    if (!this.robots.has(url.origin)) {
      this.result.origins.push(`${url.origin}/`);
      const robotsUrl = `${url.origin}/robots.txt`;
      this.robots.set(
        url.origin,
        this.get(robotsUrl, 'text/plain')
          .then(async (res) => (res.ok ? robotsParser(robotsUrl, await res.text()) : (await res.discard(), null)))
          // No robots.txt (404) or an unreachable one: nothing is disallowed. (A refused origin is refused
          // again, with its reason, when its page is fetched.)
          .catch(() => null),
      );
    }
    const rules = await this.robots.get(url.origin);
    return rules?.isAllowed(url.toString(), this.userAgent) !== false;
  }

  private enqueue(raw: string, base: string | undefined, follow: boolean): void {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    url.hash = '';
    const key = url.toString();
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push({ url: key, follow });
  }

  /** `concurrency` loops pull from one queue; links found while crawling join its end (breadth-first). */
  private drain(): Promise<void> {
    const { maxPages = 500, concurrency = 4 } = this.options;
    let fetched = 0;
    let active = 0;
    return new Promise<void>((resolve) => {
      const pump = (): void => {
        while (active < concurrency && this.queue.length > 0) {
          if (fetched >= maxPages || this.guard.exhausted) {
            this.result.limitReached = true;
            this.queue.length = 0;
            break;
          }
          fetched += 1;
          active += 1;
          void this.visit(this.queue.shift()!)
            .catch((error) => this.result.failed.push({ source: 'crawl', error: message(error), gone: false }))
            .finally(() => {
              active -= 1;
              pump();
            });
        }
        if (active === 0 && this.queue.length === 0) resolve();
      };
      pump();
    });
  }

  /** One queued URL: robots.txt, a conditional GET when it was stored before, then the page or its failure. */
  private async visit({ url, follow }: Queued): Promise<void> {
    if (!(await this.allowed(new URL(url)))) {
      this.result.disallowed.push(url);
      return;
    }
    const cached = this.options.cached?.get(url);
    let res: GuardedResponse;
    try {
      res = await this.get(url, PAGE_ACCEPT, validators(cached));
    } catch (error) {
      this.fail(url, error);
      return;
    }
    if (res.status === 304 && cached) return this.notModified(url, res, cached, follow);
    if (!res.ok) {
      await res.discard();
      this.result.failed.push({
        source: url,
        error: `HTTP ${res.status}`,
        gone: res.status === 404 || res.status === 410,
      });
      return;
    }
    const fetchedUrl = res.url;
    const format = formatOfResponse(res.headers.get('content-type'), fetchedUrl);
    if (!format) {
      await res.discard();
      this.result.failed.push({
        source: url,
        error: `unsupported content type ${res.headers.get('content-type') ?? '(none)'}`,
        gone: false,
      });
      return;
    }
    let bytes: Uint8Array;
    try {
      bytes = await res.bytes();
    } catch (error) {
      this.fail(url, error);
      return;
    }
    const { canonical, followed } =
      format === 'html' ? this.readHtml(bytes, fetchedUrl, follow) : { canonical: stripHash(fetchedUrl) };
    await this.handOn({
      url: canonical,
      fetchedUrl,
      requestedUrl: url,
      format,
      bytes,
      etag: res.headers.get('etag'),
      lastModified: res.headers.get('last-modified'),
      ...(followed ? { links: followed } : {}),
    });
  }

  /** 304: the stored page is current. Its stored links are followed again; it is handed on without a body. */
  private async notModified(url: string, res: GuardedResponse, cached: CachedPage, follow: boolean): Promise<void> {
    await res.discard();
    if (follow)
      for (const link of cached.links ?? [])
        if (this.startOrigins.has(new URL(link).origin)) this.enqueue(link, undefined, true);
    await this.handOn({
      url: cached.source,
      fetchedUrl: res.url,
      requestedUrl: url,
      format: 'html',
      bytes: new Uint8Array(),
      etag: cached.etag,
      lastModified: cached.lastModified,
      notModified: true,
    });
  }

  /**
   * An HTML page's canonical URL (its `<link rel="canonical">` when same-origin, else the URL it came from)
   * and, when its links are followed, its links to the start URLs' origins, which are queued.
   */
  private readHtml(bytes: Uint8Array, fetchedUrl: string, follow: boolean): { canonical: string; followed?: string[] } {
    const { links, canonical: declared } = scanHtml(new TextDecoder().decode(bytes));
    const resolved = declared ? safeUrl(declared, fetchedUrl) : null;
    const canonical =
      resolved && resolved.origin === new URL(fetchedUrl).origin
        ? stripHash(resolved.toString())
        : stripHash(fetchedUrl);
    if (!follow) return { canonical };
    const targets = new Set<string>();
    for (const link of links) {
      const target = safeUrl(link, fetchedUrl);
      if (target && this.startOrigins.has(target.origin)) targets.add(target.toString());
    }
    const followed = [...targets];
    for (const target of followed) this.enqueue(target, undefined, true);
    return { canonical, followed };
  }

  /** A page to `onPage`, once per canonical URL (pages sharing one are read once). */
  private async handOn(page: CrawledPage): Promise<void> {
    if (this.canonicalSeen.has(page.url)) return;
    this.canonicalSeen.add(page.url);
    this.result.seen.push(page.url);
    await this.onPage(page);
  }

  private fail(url: string, error: unknown): void {
    this.result.failed.push({ source: url, error: message(error), gone: false });
    // The crawl's byte budget is spent: what is still queued is not fetched (and --prune keeps what it
    // did not see, as after the page limit).
    if (this.guard.exhausted) {
      this.result.limitReached = true;
      this.queue.length = 0;
    }
  }
}

/** If-None-Match / If-Modified-Since from what an earlier run stored (none for a page never stored). */
function validators(cached: CachedPage | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (cached?.etag) headers['if-none-match'] = cached.etag;
  if (cached?.lastModified) headers['if-modified-since'] = cached.lastModified;
  return headers;
}
