/**
 * `GET /llms.txt` and `GET /llms-full.txt` (./build.ts). Built on demand and kept, per file and origin, for
 * the documents' version (`kb_assistants_state`): every request asks the database for that version (one cheap
 * query), so the files follow every ingestion or sync at once, on every instance, with nothing to notify.
 * The ETag is the body's hash; `If-None-Match` with it gets 304. The console's switch turns both off (404).
 */
import { Hono, type Context } from 'hono';
import { fromStoreError } from '../http/errors.ts';
import type { ChatStore } from '../store/types.ts';
import { llmsFull, llmsIndex } from './build.ts';

interface Built {
  key: string;
  etag: string;
  body: string;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Whether `If-None-Match` names the ETag (weak or strong, or `*`). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}

export function llmsRoute({ store }: { store: ChatStore }) {
  const app = new Hono();
  // The latest build of each file: one version of the knowledge base, for the origins it was asked from.
  const built = new Map<string, Built>();

  const serve = (file: 'index' | 'full') =>
    async function llms(c: Context) {
      const state = await store.assistantsState().catch((error) => {
        throw fromStoreError(error);
      });
      if (!state.enabled) return c.text('Not found', 404);
      const origin = new URL(c.req.url).origin;
      const key = `${state.version} ${origin}`;
      const cacheKey = `${file} ${origin}`;
      let entry = built.get(cacheKey);
      if (entry?.key !== key) {
        const pages = await store.assistantPages(file === 'full').catch((error) => {
          throw fromStoreError(error);
        });
        const body = file === 'full' ? llmsFull(pages, origin) : llmsIndex(pages, origin);
        entry = { key, etag: `"${(await sha256Hex(body)).slice(0, 32)}"`, body };
        // Bounded: a host header per origin could otherwise grow the map without end.
        if (built.size >= 32) built.clear();
        built.set(cacheKey, entry);
      }
      // Any cache may keep it, but must ask again before using it: the next sync may change it.
      const headers = { ETag: entry.etag, 'Cache-Control': 'public, no-cache' };
      if (matchesEtag(c.req.header('If-None-Match'), entry.etag)) return c.body(null, 304, headers);
      return c.body(entry.body, 200, { ...headers, 'Content-Type': 'text/markdown; charset=utf-8' });
    };

  app.get('/llms.txt', serve('index'));
  app.get('/llms-full.txt', serve('full'));
  return app;
}
