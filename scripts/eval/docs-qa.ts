/**
 * The docs-QA evaluation (`npm run eval -- --qa <file.json>`): what a visitor reads. The file names a corpus
 * folder (relative to the working directory) and realistic visitor questions, each with the fragments that
 * carry the fact (any one of them in the answer is enough) and the page that answers it. The corpus is
 * ingested by the real pipeline into a fresh in-memory database and every question is asked through the API.
 *
 * Reported: fact in answer, right page cited first, right page cited at all, citation precision (of all
 * citations listed, the share from the answering page), prose sentences and blocks per answer, in-KB
 * refusal, and off-topic refusal (`out_of_kb`). Each stage is also measured alone, so a change is credited
 * to the stage it touched: retrieval (the answering page first / among the first five candidates, in the
 * order extraction receives them, before the gate) and extraction (the fact in the answer among the
 * questions whose answer cites the answering page). `byKind` breaks the same numbers down by the items'
 * `kind` (the type of answer the question wants).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as v from 'valibot';
import type { RetrievalMode } from '../../protocol/index.ts';
import type { Embedder } from '../../server/ingest/embedder.ts';
import type { RetrievalOptions } from '../../server/retrieval/index.ts';
import { decide, gatherEvidence } from '../../server/retrieval/index.ts';
import { askAll, createAsker, type Reply } from './ask.ts';
import { answerBlocks, containsFact, percentile, proseSentences, ratio } from './metrics.ts';
import { buildKb, type Kb } from './squad.ts';

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
  /** Retrieval alone: the answering page is the first candidate / among the first five (before the gate). */
  retrieval_top1: number;
  retrieval_top5: number;
  /** Extraction alone: fact in the answer, of the answers that cite the answering page. */
  fact_when_cited: number;
  p50_ms: number;
  p95_ms: number;
}

export interface QaResult {
  item: QaItem;
  reply: Reply;
  /** Sources (corpus-relative paths) of the citations, in order. */
  cited: string[];
  fact: boolean;
  /** Answering-page rank among the candidates before the gate (0 = first), -1 when not among the first five. */
  candidateRank: number;
}

/** Per-kind numbers: the same definitions as the report's, over the items of one kind. */
export interface KindRow {
  kind: string;
  n: number;
  fact_in_answer: number;
  right_page_first: number;
  retrieval_top1: number;
  retrieval_top5: number;
  fact_when_cited: number;
  /** Questions behind `fact_when_cited`. */
  cited: number;
}

const CLAIMS = { sub: '00000000-0000-0000-0000-000000000000', role: 'authenticated' };
/** Candidates looked at for "retrieval alone": the chat endpoint cites at most five sections. */
const CANDIDATES = 5;

export interface QaEvalOptions {
  qa: QaFile;
  embedder: Embedder;
  mode: RetrievalMode;
  evidenceThreshold: number;
  retrieval?: Partial<RetrievalOptions>;
  /** Overrides `qa.corpus`. */
  corpus?: string;
  /** The database to start from (buildKb). */
  loadDataDir?: Blob;
  /**
   * A knowledge base already holding the corpus, left open afterwards: several sets over one site are asked of
   * one ingestion (the quality floor does so). Without it the corpus is ingested here and closed after.
   */
  kb?: Kb;
}

export async function evaluateQa(
  options: QaEvalOptions,
): Promise<{ report: QaReport; results: QaResult[]; offTopic: { q: string; reply: Reply }[]; chunks: number }> {
  const { qa, embedder, mode } = options;
  const kb = options.kb ?? (await buildKb(path.resolve(options.corpus ?? qa.corpus), embedder, options.loadDataDir));
  try {
    const sourceOf = new Map((await kb.store.listDocuments()).map((d) => [d.id, d.source]));
    const asker = createAsker(kb.store, {
      evidenceThreshold: options.evidenceThreshold,
      retrieval: { ...options.retrieval, mode },
    });
    const replies = await askAll(
      asker,
      embedder,
      mode,
      qa.items.map((i) => i.q),
    );
    const offReplies = await askAll(asker, embedder, mode, qa.out_of_kb);

    // Retrieval alone: the candidates in the order extraction would receive them (evidence, one per section),
    // with no threshold, so a refused question still shows where its answering page was.
    const embeddings = mode === 'lexical' ? null : await embedder.embed(qa.items.map((i) => i.q));
    const candidates: string[][] = [];
    for (const [i, item] of qa.items.entries()) {
      const { rows } = await gatherEvidence(
        kb.store,
        { claims: CLAIMS, question: item.q, embedding: embeddings?.[i] },
        { mode },
      );
      const open = decide(
        rows,
        mode,
        {
          evidenceThreshold: 0,
          lexicalThreshold: 0,
          hybridThreshold: 0,
          hybridMinCoverage: 0,
          citationFloor: 0,
          matchCount: CANDIDATES,
        },
        item.q,
      );
      candidates.push(open.kind === 'answer' ? open.chunks.map((c) => sourceOf.get(c.document_id) ?? '?') : []);
    }

    const results: QaResult[] = qa.items.map((item, i) => {
      const reply = replies[i]!;
      const cited = reply.kind === 'answer' ? reply.citations.map((c) => sourceOf.get(c.document_id) ?? '?') : [];
      const fact = reply.kind === 'answer' && containsFact(reply.text, item.expect);
      return { item, reply, cited, fact, candidateRank: candidates[i]!.indexOf(item.source) };
    });
    const answered = results.filter((r) => r.reply.kind === 'answer');
    const texts = answered.map((r) => (r.reply.kind === 'answer' ? r.reply.text : ''));
    const allCited = answered.flatMap((r) => r.cited.map((source) => source === r.item.source));
    const mean = (xs: number[]) =>
      ratio(
        xs.reduce((a, b) => a + b, 0),
        xs.length,
      );
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
      off_topic_refusal:
        qa.out_of_kb.length === 0
          ? null
          : ratio(offReplies.filter((r) => r.kind === 'refusal').length, qa.out_of_kb.length),
      p50_ms: percentile(latencies, 50),
      p95_ms: percentile(latencies, 95),
      ...stages(results),
    };
    return { report, results, offTopic: qa.out_of_kb.map((q, i) => ({ q, reply: offReplies[i]! })), chunks: kb.chunks };
  } finally {
    if (!options.kb) await kb.close();
  }
}

/** Retrieval alone and extraction alone over `results`. */
function stages(results: QaResult[]): Pick<QaReport, 'retrieval_top1' | 'retrieval_top5' | 'fact_when_cited'> {
  const cited = results.filter((r) => r.cited.includes(r.item.source));
  return {
    retrieval_top1: ratio(results.filter((r) => r.candidateRank === 0).length, results.length),
    retrieval_top5: ratio(results.filter((r) => r.candidateRank >= 0).length, results.length),
    fact_when_cited: ratio(cited.filter((r) => r.fact).length, cited.length),
  };
}

/** The report's main numbers per item kind, kinds in order of first appearance. */
export function byKind(results: QaResult[]): KindRow[] {
  const groups = new Map<string, QaResult[]>();
  for (const r of results) {
    const kind = r.item.kind ?? '(none)';
    groups.set(kind, [...(groups.get(kind) ?? []), r]);
  }
  return [...groups].map(([kind, rs]) => ({
    kind,
    n: rs.length,
    fact_in_answer: ratio(rs.filter((r) => r.fact).length, rs.length),
    right_page_first: ratio(rs.filter((r) => r.cited[0] === r.item.source).length, rs.length),
    ...stages(rs),
    cited: rs.filter((r) => r.cited.includes(r.item.source)).length,
  }));
}
