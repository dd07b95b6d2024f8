/**
 * HNSW recall@10 against an exact scan on PostgreSQL, as recall.ts measures it on PGlite: the ten nearest
 * chunks through the index (sequential scans off), then by a scan and sort (index scans off), per question,
 * each in its own transaction with the settings local to it. On PostgreSQL the exact scan may run in
 * parallel workers; the time is the wall time of one query either way.
 */
import pg from 'pg';
import type { RecallAtEf } from './recall.ts';
import { mean } from './stats.ts';

const NEAREST = 'select e.chunk_id from kb_embeddings e order by e.embedding <=> $1::vector limit 10';

export async function measurePgRecall(url: string, embeddings: number[][], efSearch: number[]): Promise<RecallAtEf[]> {
  const client = new pg.Client({ connectionString: url, options: '-c search_path=public,extensions' });
  await client.connect();
  const nearest = async (vector: string, settings: string) => {
    await client.query('begin');
    try {
      await client.query(settings);
      const started = performance.now();
      const { rows } = await client.query<{ chunk_id: string }>(NEAREST, [vector]);
      return { ids: rows.map((r) => r.chunk_id), ms: performance.now() - started };
    } finally {
      await client.query('rollback');
    }
  };
  try {
    const exactSettings = 'set local enable_indexscan = off';
    await nearest(JSON.stringify(embeddings[0]), exactSettings); // reads the table into the cache, untimed
    const exact: { ids: Set<string>; ms: number }[] = [];
    for (const embedding of embeddings) {
      const { ids, ms } = await nearest(JSON.stringify(embedding), exactSettings);
      exact.push({ ids: new Set(ids), ms });
    }
    const out: RecallAtEf[] = [];
    for (const ef of efSearch) {
      const settings = `set local hnsw.ef_search = ${ef}; set local hnsw.iterative_scan = relaxed_order; set local enable_seqscan = off`;
      await nearest(JSON.stringify(embeddings[0]), settings);
      const plan = await client.query<{ 'QUERY PLAN': string }>(`explain ${NEAREST}`, [JSON.stringify(embeddings[0])]);
      const recalls: number[] = [];
      const times: number[] = [];
      for (const [i, embedding] of embeddings.entries()) {
        const { ids, ms } = await nearest(JSON.stringify(embedding), settings);
        const truth = exact[i]!.ids;
        recalls.push(ids.filter((id) => truth.has(id)).length / Math.max(1, Math.min(10, truth.size)));
        times.push(ms);
      }
      out.push({
        ef_search: ef,
        recall_at_10: Math.round(mean(recalls)! * 1000) / 1000,
        hnsw_ms: Math.round(mean(times)! * 100) / 100,
        exact_ms: Math.round(mean(exact.map((e) => e.ms))! * 100) / 100,
        // Without the session's enable_seqscan = off the plain EXPLAIN shows the planner's own choice.
        hnsw_used: plan.rows.some((r) => r['QUERY PLAN'].includes('kb_embeddings_embedding_hnsw')),
      });
    }
    return out;
  } finally {
    await client.end();
  }
}
