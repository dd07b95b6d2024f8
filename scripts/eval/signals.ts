/**
 * Per-question gate signals for calibration: the same `gatherEvidence` the chat endpoint's `retrieve`
 * runs, before any threshold, for in-KB and out-of-KB questions.
 */
import type { RetrievalMode } from '../../protocol/index.ts';
import type { Embedder } from '../../server/ingest/embedder.ts';
import { gatherEvidence } from '../../server/retrieval/index.ts';
import type { SearchChunkRow } from '../../server/store/types.ts';
import type { PgliteStore } from '../../server/store/pglite.ts';
import type { SquadQuestion } from './squad.ts';

export interface QuestionSignals {
  inKb: boolean;
  rows: Pick<SearchChunkRow, 'cosine' | 'coverage' | 'meta' | 'document_title'>[];
  section: string;
}

const CLAIMS = { sub: '00000000-0000-0000-0000-000000000000', role: 'authenticated' };

export async function collectSignals(
  store: PgliteStore,
  embedder: Embedder,
  mode: RetrievalMode,
  questions: { question: SquadQuestion; inKb: boolean }[],
): Promise<QuestionSignals[]> {
  const embeddings = mode === 'lexical' ? null : await embedder.embed(questions.map((q) => q.question.question));
  const out: QuestionSignals[] = [];
  for (const [i, { question, inKb }] of questions.entries()) {
    const { rows } = await gatherEvidence(
      store,
      { claims: CLAIMS, question: question.question, embedding: embeddings?.[i] },
      { mode },
    );
    out.push({
      inKb,
      section: question.section,
      rows: rows.map((r) => ({
        cosine: r.cosine,
        coverage: r.coverage,
        meta: { section: r.meta.section },
        document_title: r.document_title,
      })),
    });
  }
  return out;
}
