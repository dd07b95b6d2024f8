/**
 * Ingestion at full size on the real Railway help center (196 pages, read in place from shared/data):
 * the whole corpus ingests into PGlite through the worker pool, the API answers "How do refunds work?"
 * citing the refunds page, and an unchanged re-run takes a small fraction of the first run's time.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, question, type TestApi } from '../testing/api.ts';
import { readChatEvents } from '../../protocol/sse.ts';
import { createEmbedder, type Embedder } from './embedder.ts';
import { MODEL, MODEL_DIR, RAILWAY_DOCS, RAILWAY_DOCS_PATH } from './fixtures/paths.ts';
import { hasSharedData } from '../../scripts/lib/shared-data.mjs';
import { ingest, type IngestSummary } from './pipeline.ts';
import { createWorkerPool, type Preparer } from './pool.ts';

const ROOT = path.dirname(RAILWAY_DOCS); // …/railway-docs/content: sources are `docs/pricing/refunds.md`
let api: TestApi;
let pool: Preparer;
let embedder: Embedder;
let first: IngestSummary;

describe.skipIf(!hasSharedData(RAILWAY_DOCS_PATH))('the Railway corpus end to end', () => {
  beforeAll(async () => {
    [api, pool, embedder] = await Promise.all([
      createTestApi({ embedModel: MODEL }),
      createWorkerPool({ model: MODEL, modelDir: MODEL_DIR }),
      createEmbedder({ model: MODEL, modelDir: MODEL_DIR }),
    ]);
  });
  afterAll(async () => {
    await pool?.close();
    await api?.close();
  });

  it('ingests every page with titles, urls, source types and chunk citations', { timeout: 180_000 }, async () => {
    first = await ingest({
      store: api.store,
      preparer: pool,
      model: MODEL,
      inputs: ['docs'],
      cwd: ROOT,
      baseUrl: 'https://docs.railway.com',
    });
    expect(first.failed).toEqual([]);
    expect(first.added).toBe(196);
    expect(first.chunks).toBeGreaterThan(2000);
    // Throughput with the model already loaded (the pool started in beforeAll), on whatever this machine is.
    console.log(
      `railway corpus: ${first.chunks} chunks in ${first.seconds.toFixed(1)} s = ${Math.round(first.chunks / first.seconds)} chunks/s`,
    );
    const stats = await api.store.kbStats();
    expect(stats).toMatchObject({
      documents: 196,
      ready_documents: 196,
      chunks: first.chunks,
      embeddings: first.chunks,
    });
    // The HNSW index was dropped for the bulk load and is back.
    const { rows } = await api.store.db.query(
      "select 1 from pg_indexes where indexname = 'kb_embeddings_embedding_hnsw'",
    );
    expect(rows).toHaveLength(1);
    const [refunds] = (
      await api.store.db.query<{ name: string; meta: Record<string, unknown> }>(
        "select name, meta from kb_documents where source = 'docs/pricing/refunds.md'",
      )
    ).rows;
    expect(refunds).toMatchObject({
      name: 'Refunds',
      meta: { url: 'https://docs.railway.com/pricing/refunds', source_type: 'markdown', tags: [], language: null },
    });
  });

  it('answers "How do refunds work?" citing the refunds page', { timeout: 60_000 }, async () => {
    const [embedding] = await embedder.embed(['How do refunds work?']);
    const { token } = await api.signIn();
    const res = await api.chat(token, question(embedding));
    expect(res.status).toBe(200);
    const events = await readChatEvents(res);
    const sources = events.find((e) => e.event.event === 'sources')?.event as
      | { data?: { citations: { url: string | null }[] } }
      | undefined;
    const urls = (sources?.data?.citations ?? []).map((c) => c.url ?? '');
    expect(
      urls.some((u) => u.startsWith('https://docs.railway.com/pricing/refunds')),
      JSON.stringify(events.map((e) => e.event)),
    ).toBe(true);
  });

  it('re-runs an unchanged corpus in a small fraction of the time, writing nothing', { timeout: 60_000 }, async () => {
    const again = await ingest({ store: api.store, preparer: pool, model: MODEL, inputs: ['docs'], cwd: ROOT });
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 196, chunks: 0, failed: [] });
    console.log(`unchanged re-run: ${again.seconds.toFixed(2)} s (first run ${first.seconds.toFixed(1)} s)`);
    expect(again.seconds).toBeLessThan(first.seconds / 4);
  });
});
