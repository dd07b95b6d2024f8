/**
 * Extractive answers (seed 000 "Answer Formatting"): at most three sentences copied verbatim from the
 * qualifying chunks, chosen by how many of the question's content words they contain, kept in reading
 * order, each followed by the `[n]` marker of the source it came from. Every qualifying chunk is cited.
 */
import type { Citation } from '../../protocol/index.ts';
import type { ChunkMatch } from '../store/types.ts';
import { contentWords, sentences } from './text.ts';

export const MAX_ANSWER_SENTENCES = 3;

export interface ExtractiveAnswer {
  /** Markdown: the chosen sentences, each followed by its ` [n]` marker. */
  text: string;
  citations: Citation[];
}

interface Candidate {
  sentence: string;
  n: number;
  order: number;
  overlap: number;
  score: number;
}

/** `chunks` best first, all above the evidence threshold. */
export function extractAnswer(question: string, chunks: ChunkMatch[]): ExtractiveAnswer {
  const citations = chunks.map(toCitation);
  const asked = new Set(contentWords(question));
  const candidates: Candidate[] = [];
  chunks.forEach((chunk, index) => {
    sentences(chunk.content).forEach((sentence, position) => {
      const words = new Set(contentWords(sentence));
      let overlap = 0;
      for (const word of asked) if (words.has(word)) overlap += 1;
      candidates.push({
        sentence,
        n: index + 1,
        order: index * 10_000 + position,
        overlap,
        // Coverage of the question first; the chunk's own similarity breaks ties, then earlier sentences win.
        score: overlap + chunk.similarity - position * 1e-3,
      });
    });
  });

  const chosen = candidates
    .filter((c) => c.overlap > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, MAX_ANSWER_SENTENCES)
    .sort((a, b) => a.order - b.order);
  // A chunk that qualified but had no sentence with any content (e.g. only a heading) still answers with
  // its first sentence rather than with nothing.
  if (chosen.length === 0 && candidates[0]) chosen.push(candidates[0]);

  return { text: chosen.map((c) => `${c.sentence} [${c.n}]`).join(' '), citations };
}

function toCitation(chunk: ChunkMatch, index: number): Citation {
  return {
    n: index + 1,
    chunk_id: chunk.chunk_id,
    document_id: chunk.document_id,
    title: chunk.document_title,
    page: typeof chunk.meta.page === 'number' ? chunk.meta.page : null,
    section: chunk.meta.section ?? null,
    url: chunk.meta.url ?? chunk.document_url ?? null,
    similarity: Math.round(chunk.similarity * 1000) / 1000,
  };
}
