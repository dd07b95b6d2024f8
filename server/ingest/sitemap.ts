/**
 * A sitemap's page URLs for the crawler (crawl.ts): `<loc>` entries, sitemap indexes followed two levels deep.
 * Entries are taken only on the sitemap's own origin: a sitemap must not send the crawler to other sites.
 */
import { Parser } from 'htmlparser2';
import type { GuardedResponse } from './guarded-fetch.ts';
import { safeUrl } from './page-scan.ts';

export async function readSitemap(
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
  const { locs, index } = parseSitemap(await res.text());
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
    sameOrigin.map(async (loc) =>
      (await allowed(loc)) ? readSitemap(loc.toString(), get, allowed, skip, depth + 1) : [],
    ),
  );
  return nested.flat();
}

/** The `<loc>` texts of a sitemap, and whether it is a sitemap index (its entries are sitemaps). */
function parseSitemap(xml: string): { locs: string[]; index: boolean } {
  const locs: string[] = [];
  let inLoc = false;
  let text = '';
  let index = false;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'sitemapindex') index = true;
        if (name === 'loc') (inLoc = true), (text = '');
      },
      ontext(data) {
        if (inLoc) text += data;
      },
      onclosetag(name) {
        if (name === 'loc') (inLoc = false), locs.push(text.trim());
      },
    },
    { xmlMode: true },
  );
  parser.end(xml);
  return { locs, index };
}
