/**
 * HNSW recall@10 against an exact scan. search_chunks walks the HNSW index with hnsw.ef_search = 200 (and
 * iterative scans on); an approximate index is only worth its speed if it finds what an exact scan finds.
 * For each question the ten nearest chunks are asked with sequential scans off (so through the index, even
 * where the planner would rather scan a small table: it is the index being measured) and again with index
 * scans off (a scan and sort: exact); recall is |both| / 10. Measured at more than one ef_search so the
 * report shows what the setting buys and costs.
 */
import type { Transaction } from '@electric-sql/pglite';
import { openPgliteStore } from '../../server/store/pglite.ts';
import { mean } from './stats.ts';

export interface RecallAtEf {
  ef_search: number;
  recall_at_10: number;
  /** Mean time of one query through the index (ms), for the cost side of ef_search. */
  hnsw_ms: number;
  exact_ms: number;
  /** Whether the plan of the "index" query really used the HNSW index (else the recall says nothing). */
  hnsw_used: boolean;
}

const NEAREST = 'select e.chunk_id from kb_embeddings e order by e.embedding <=> $1::vector limit 10';

/** Opens `dataDir` (nothing else may have it open), measures, closes. */
export async function measureRecall(
  dataDir: string,
  embeddings: number[][],
  efSearch: number[],
): Promise<RecallAtEf[]> {
  const store = await openPgliteStore(dataDir);
  const nearest = async (tx: Transaction, vector: string, settings: string) => {
    await tx.exec(settings);
    const started = performance.now();
    const { rows } = await tx.query<{ chunk_id: string }>(NEAREST, [vector]);
    return { ids: rows.map((r) => r.chunk_id), ms: performance.now() - started };
  };
  try {
    const db = store.db;
    // The truth does not depend on ef_search: one exact scan per question.
    const exact: { ids: Set<string>; ms: number }[] = [];
    await db.transaction(
      async (tx) => void (await nearest(tx, JSON.stringify(embeddings[0]), 'set local enable_indexscan = off')),
    );
    for (const embedding of embeddings) {
      await db.transaction(async (tx) => {
        const { ids, ms } = await nearest(tx, JSON.stringify(embedding), 'set local enable_indexscan = off');
        exact.push({ ids: new Set(ids), ms });
      });
    }
    const out: RecallAtEf[] = [];
    for (const ef of efSearch) {
      const settings = `set local hnsw.ef_search = ${ef}; set local hnsw.iterative_scan = relaxed_order; set local enable_seqscan = off`;
      const recalls: number[] = [];
      const times: number[] = [];
      let hnswUsed = false;
      // One untimed query first, so the first timed one does not pay for reading the index into memory.
      await db.transaction(async (tx) => void (await nearest(tx, JSON.stringify(embeddings[0]), settings)));
      for (const [i, embedding] of embeddings.entries()) {
        const vector = JSON.stringify(embedding);
        await db.transaction(async (tx) => {
          const { ids, ms } = await nearest(tx, vector, settings);
          if (i === 0) {
            const plan = await tx.query<{ 'QUERY PLAN': string }>(`explain ${NEAREST}`, [vector]);
            hnswUsed = plan.rows.some((r) => r['QUERY PLAN'].includes('kb_embeddings_embedding_hnsw'));
          }
          const truth = exact[i]!.ids;
          recalls.push(ids.filter((id) => truth.has(id)).length / Math.max(1, Math.min(10, truth.size)));
          times.push(ms);
        });
      }
      out.push({
        ef_search: ef,
        recall_at_10: Math.round(mean(recalls)! * 1000) / 1000,
        hnsw_ms: Math.round(mean(times)! * 100) / 100,
        exact_ms: Math.round(mean(exact.map((e) => e.ms))! * 100) / 100,
        hnsw_used: hnswUsed,
      });
    }
    return out;
  } finally {
    await store.close();
  }
}
