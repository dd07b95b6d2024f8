/**
 * Extractive answers (seed 000 "Answer Formatting"): at most three sentences copied verbatim from the
 * qualifying chunks, chosen for how well they answer the question, kept in reading order (the chunks'
 * citation order, then position inside the chunk), each followed by the `[n]` marker of its source.
 *
 * A sentence's score is the share of the question's content words it contains, each word weighted by how
 * rare it is among the candidate sentences (a word every sentence has says little about which one answers),
 * plus a small bonus for the chunk's own evidence and for coming early. Citations: one per document
 * section, at most five, in the order retrieval ranked them — by the gate's evidence, best first (see
 * server/retrieval/gate.ts), so the sentences come from the best-evidence chunks first.
 */
import type { Citation } from '../../protocol/index.ts';
import type { ChunkMatch } from '../store/types.ts';
import { excerpt } from './excerpt.ts';
import { contentWords, sentences } from './text.ts';

export const MAX_ANSWER_SENTENCES = 3;
export const MAX_CITATIONS = 5;

export interface ExtractiveAnswer {
  /** Markdown: the chosen sentences, each followed by its ` [n]` marker. */
  text: string;
  citations: Citation[];
}

interface Candidate {
  sentence: string;
  words: Set<string>;
  n: number;
  order: number;
  bonus: number;
  score: number;
}

/** `chunks` best first, all above the evidence threshold. */
export function extractAnswer(question: string, chunks: ChunkMatch[]): ExtractiveAnswer {
  const cited = citedChunks(chunks);
  const citations = cited.map(toCitation);
  const asked = new Set(contentWords(question));
  const candidates: Candidate[] = [];
  cited.forEach((chunk, index) => {
    sentences(chunk.content).forEach((sentence, position) => {
      candidates.push({
        sentence,
        words: new Set(contentWords(sentence)),
        n: index + 1,
        order: index * 10_000 + position,
        // Ties: the better chunk, then the earlier sentence.
        bonus: 0.05 * chunk.similarity - index * 0.01 - position * 1e-3,
        score: 0,
      });
    });
  });

  const weight = new Map<string, number>();
  for (const word of asked) {
    const df = candidates.filter((c) => c.words.has(word)).length;
    weight.set(word, Math.log(1 + (candidates.length + 1) / (df + 0.5)));
  }
  const total = [...weight.values()].reduce((a, b) => a + b, 0) || 1;
  for (const c of candidates) {
    let covered = 0;
    for (const [word, w] of weight) if (c.words.has(word)) covered += w;
    c.score = covered / total + (covered > 0 ? c.bonus : 0);
  }

  const chosen = candidates
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, MAX_ANSWER_SENTENCES)
    .sort((a, b) => a.order - b.order);
  // A chunk that qualified but had no sentence with any content (e.g. only a heading) still answers with
  // its first sentence rather than with nothing.
  if (chosen.length === 0 && candidates[0]) chosen.push(candidates[0]);

  return { text: chosen.map((c) => `${c.sentence} [${c.n}]`).join(' '), citations };
}

/** Best first; a second chunk of an already cited document section adds nothing a reader can follow. */
export function citedChunks(chunks: ChunkMatch[]): ChunkMatch[] {
  const seen = new Set<string>();
  const out: ChunkMatch[] = [];
  for (const chunk of chunks) {
    const key = `${chunk.document_id}\u0000${chunk.meta.section ?? chunk.meta.anchor ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(chunk);
    if (out.length === MAX_CITATIONS) break;
  }
  return out;
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
    excerpt: excerpt(chunk.content, 300),
    ...(typeof chunk.meta.char_start === 'number' && typeof chunk.meta.char_end === 'number'
      ? { char_start: chunk.meta.char_start, char_end: chunk.meta.char_end }
      : {}),
  };
}
