/**
 * `POST /api/search`: ranked chunks for a query — no answer, no gate — for site search boxes
 * and debugging retrieval. Same auth and rate limit as chat.
 */
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { SearchRequestSchema, type SearchRequest, type SearchResponse } from '../../protocol/index.ts';
import { requireAuth, type AuthVariables, type TokenVerification } from '../auth/jwt.ts';
import { excerpt } from '../chat/excerpt.ts';
import { parseBody, readJson } from '../http/body.ts';
import { cleanMessage } from '../chat/request.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import { rateLimit, type RateLimitOptions } from '../http/rate-limit.ts';
import { search } from '../retrieval/index.ts';
import type { ChatStore } from '../store/types.ts';

const SNIPPET_CHARS = 200;

export function searchRoute({
  store,
  auth,
  rateLimit: limits,
}: {
  store: ChatStore;
  auth: TokenVerification;
  rateLimit: Omit<RateLimitOptions, 'store'>;
}) {
  const app = new Hono<{ Variables: AuthVariables & { search: SearchRequest & { question: string } } }>();

  // Validated before the rate limiter: an invalid request costs no database work and writes nothing.
  const validate = createMiddleware<{ Variables: { search: SearchRequest & { question: string } } }>(
    async (c, next) => {
      const body = parseBody(SearchRequestSchema, await readJson(c.req.raw));
      const question = body.query_text ? cleanMessage(body.query_text).trim() : '';
      if (!question && !body.embedding) {
        throw new AppError(400, 'invalid_request', 'query_text: give query_text, embedding, or both');
      }
      c.set('search', { ...body, question });
      await next();
    },
  );

  app.post('/', requireAuth(auth), validate, rateLimit({ store, ...limits }), async function searchChunks(c) {
    const started = performance.now();
    const { question, ...body } = c.get('search');
    const { results } = await search(store, {
      claims: c.get('claims'),
      question: question || null,
      embedding: body.embedding ?? null,
      mode: body.mode,
      topK: body.top_k,
      filters: body.filters,
    }).catch((error) => {
      throw fromStoreError(error);
    });
    return c.json<SearchResponse>({
      results: results.map((hit) => ({
        rank: hit.rank,
        score: Math.round(hit.score * 10_000) / 10_000,
        snippet: snippet(hit.content),
        title: hit.title,
        url: hit.url,
        meta: { ...hit.document_meta, ...hit.meta },
        chunk_id: hit.chunk_id,
        document_id: hit.document_id,
      })),
      total_found: results.length,
      processing_time_ms: Math.round(performance.now() - started),
    });
  });

  return app;
}

/** The chunk's text without Markdown markup, cut at a word boundary within 200 characters. */
export function snippet(content: string): string {
  return excerpt(content, SNIPPET_CHARS);
}
