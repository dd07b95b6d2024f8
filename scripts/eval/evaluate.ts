/**
 * The SQuAD evaluation: knowledge base from one SQuAD file, every answerable question of it asked through
 * the API (in-KB), every question of the out-of-KB articles asked too (all of them should be refused).
 */
import type { RetrievalMode } from '../../protocol/index.ts';
import type { Embedder } from '../../server/ingest/embedder.ts';
import type { RetrievalOptions } from '../../server/retrieval/index.ts';
import { askAll, createAsker } from './ask.ts';
import { containsAnswer, markersOf, percentile, ratio, spread } from './metrics.ts';
import { buildSquadKb, questionsOf, type SquadArticle } from './squad.ts';

export interface SquadReport {
  hit_at_1: number;
  hit_at_3: number;
  hit_at_5: number;
  containment: number;
  /** Of all citations listed, the share that is the gold paragraph. */
  citation_precision: number;
  /** Of all quoted units (one `[n]` marker each), the share quoted from the gold paragraph. */
  answer_precision: number;
  in_kb_refusal: number;
  out_of_kb_refusal: number | null;
  p50_ms: number;
  p95_ms: number;
}

export interface SquadEvalOptions {
  kb: SquadArticle[];
  outOfKb: SquadArticle[];
  embedder: Embedder;
  mode: RetrievalMode;
  /** Questions per set at most (spread evenly over the articles). */
  limit: number | null;
  evidenceThreshold: number;
  retrieval?: Partial<RetrievalOptions>;
  onProgress?: (done: number, total: number) => void;
}

export async function evaluateSquad(
  options: SquadEvalOptions,
): Promise<{ report: SquadReport; chunks: number; inKb: number; outOfKb: number }> {
  const { embedder, mode } = options;
  const kb = await buildSquadKb(options.kb, embedder);
  try {
    const asker = createAsker(kb.store, {
      evidenceThreshold: options.evidenceThreshold,
      retrieval: { ...options.retrieval, mode },
    });
    const inKb = spread(
      questionsOf(options.kb).filter((q) => q.answerable),
      options.limit,
    );
    const outOfKb = spread(questionsOf(options.outOfKb), options.limit);
    const total = inKb.length + outOfKb.length;
    const progress = (offset: number) => (done: number) => options.onProgress?.(offset + done, total);
    const inReplies = await askAll(
      asker,
      embedder,
      mode,
      inKb.map((q) => q.question),
      progress(0),
    );
    const outReplies = await askAll(
      asker,
      embedder,
      mode,
      outOfKb.map((q) => q.question),
      progress(inKb.length),
    );

    const hits = (k: number) =>
      ratio(
        inReplies.filter(
          (r, i) => r.kind === 'answer' && r.citations.slice(0, k).some((c) => c.section === inKb[i]!.section),
        ).length,
        inKb.length,
      );
    const latencies = [...inReplies, ...outReplies].map((r) => r.ms);
    const gold = inReplies.flatMap((r, i) =>
      r.kind === 'answer' ? r.citations.map((c) => c.section === inKb[i]!.section) : [],
    );
    const quoted = inReplies.flatMap((r, i) => {
      if (r.kind !== 'answer') return [];
      const section = new Map(r.citations.map((c) => [c.n, c.section]));
      return markersOf(r.text).map((n) => section.get(n) === inKb[i]!.section);
    });
    const report: SquadReport = {
      hit_at_1: hits(1),
      hit_at_3: hits(3),
      hit_at_5: hits(5),
      containment: ratio(
        inReplies.filter((r, i) => r.kind === 'answer' && containsAnswer(r.text, inKb[i]!.answers)).length,
        inKb.length,
      ),
      citation_precision: ratio(gold.filter(Boolean).length, gold.length),
      answer_precision: ratio(quoted.filter(Boolean).length, quoted.length),
      in_kb_refusal: ratio(inReplies.filter((r) => r.kind === 'refusal').length, inKb.length),
      out_of_kb_refusal:
        outOfKb.length === 0 ? null : ratio(outReplies.filter((r) => r.kind === 'refusal').length, outOfKb.length),
      p50_ms: percentile(latencies, 50),
      p95_ms: percentile(latencies, 95),
    };
    return { report, chunks: kb.chunks, inKb: inKb.length, outOfKb: outOfKb.length };
  } finally {
    await kb.close();
  }
}
