/**
 * The docs-QA evaluation (`npm run eval -- --qa <file.json>`): what a visitor reads. The file names a corpus
 * folder (relative to the working directory) and realistic visitor questions, each with the fragments that
 * carry the fact (any one of them in the answer is enough) and the page that answers it. The corpus is
 * ingested by the real pipeline into a fresh in-memory database and every question is asked through the API.
 *
 * Reported: fact in answer, right page cited first, right page cited at all, citation precision (of all
 * citations listed, the share from the answering page), prose sentences and blocks per answer, in-KB
 * refusal, and off-topic refusal (`out_of_kb`).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as v from 'valibot';
import type { RetrievalMode } from '../../protocol/index.ts';
import type { Embedder } from '../../server/ingest/embedder.ts';
import type { RetrievalOptions } from '../../server/retrieval/index.ts';
import { askAll, createAsker, type Reply } from './ask.ts';
import { answerBlocks, containsFact, percentile, proseSentences, ratio } from './metrics.ts';
import { buildKb } from './squad.ts';

const QaFileSchema = v.object({
  name: v.string(),
  /** The corpus folder, relative to the working directory (`npm run eval` runs in the repo root). */
  corpus: v.string(),
  items: v.array(
    v.object({
      q: v.string(),
      expect: v.pipe(v.array(v.string()), v.minLength(1)),
      /** The answering page, relative to the corpus folder. */
      source: v.string(),
      kind: v.optional(v.string()),
    }),
  ),
  out_of_kb: v.optional(v.array(v.string()), []),
});
export type QaFile = v.InferOutput<typeof QaFileSchema>;
export type QaItem = QaFile['items'][number];

export async function readQaFile(file: string): Promise<QaFile> {
  const parsed = v.safeParse(QaFileSchema, JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${v.summarize(parsed.issues)}`);
  return parsed.output;
}

export interface QaReport {
  fact_in_answer: number;
  right_page_first: number;
  right_page_cited: number;
  citation_precision: number;
  citations_per_answer: number;
  sentences_per_answer: number;
  blocks_per_answer: number;
  in_kb_refusal: number;
  off_topic_refusal: number | null;
  p50_ms: number;
  p95_ms: number;
}

export interface QaResult {
  item: QaItem;
  reply: Reply;
  /** Sources (corpus-relative paths) of the citations, in order. */
  cited: string[];
  fact: boolean;
}

export interface QaEvalOptions {
  qa: QaFile;
  embedder: Embedder;
  mode: RetrievalMode;
  evidenceThreshold: number;
  retrieval?: Partial<RetrievalOptions>;
  /** Overrides `qa.corpus`. */
  corpus?: string;
}

export async function evaluateQa(
  options: QaEvalOptions,
): Promise<{ report: QaReport; results: QaResult[]; offTopic: { q: string; reply: Reply }[]; chunks: number }> {
  const { qa, embedder, mode } = options;
  const kb = await buildKb(path.resolve(options.corpus ?? qa.corpus), embedder);
  try {
    const sourceOf = new Map((await kb.store.listDocuments()).map((d) => [d.id, d.source]));
    const asker = createAsker(kb.store, { evidenceThreshold: options.evidenceThreshold, retrieval: { ...options.retrieval, mode } });
    const replies = await askAll(asker, embedder, mode, qa.items.map((i) => i.q));
    const offReplies = await askAll(asker, embedder, mode, qa.out_of_kb);

    const results: QaResult[] = qa.items.map((item, i) => {
      const reply = replies[i]!;
      const cited = reply.kind === 'answer' ? reply.citations.map((c) => sourceOf.get(c.document_id) ?? '?') : [];
      return { item, reply, cited, fact: reply.kind === 'answer' && containsFact(reply.text, item.expect) };
    });
    const answered = results.filter((r) => r.reply.kind === 'answer');
    const texts = answered.map((r) => (r.reply.kind === 'answer' ? r.reply.text : ''));
    const allCited = answered.flatMap((r) => r.cited.map((source) => source === r.item.source));
    const mean = (xs: number[]) => ratio(xs.reduce((a, b) => a + b, 0), xs.length);
    const latencies = [...replies, ...offReplies].map((r) => r.ms);
    const report: QaReport = {
      fact_in_answer: ratio(results.filter((r) => r.fact).length, results.length),
      right_page_first: ratio(results.filter((r) => r.cited[0] === r.item.source).length, results.length),
      right_page_cited: ratio(results.filter((r) => r.cited.includes(r.item.source)).length, results.length),
      citation_precision: ratio(allCited.filter(Boolean).length, allCited.length),
      citations_per_answer: ratio(allCited.length, answered.length),
      sentences_per_answer: mean(texts.map(proseSentences)),
      blocks_per_answer: mean(texts.map(answerBlocks)),
      in_kb_refusal: ratio(results.length - answered.length, results.length),
      off_topic_refusal: qa.out_of_kb.length === 0 ? null : ratio(offReplies.filter((r) => r.kind === 'refusal').length, qa.out_of_kb.length),
      p50_ms: percentile(latencies, 50),
      p95_ms: percentile(latencies, 95),
    };
    return { report, results, offTopic: qa.out_of_kb.map((q, i) => ({ q, reply: offReplies[i]! })), chunks: kb.chunks };
  } finally {
    await kb.close();
  }
}
