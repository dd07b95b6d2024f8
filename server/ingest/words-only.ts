/**
 * Ingestion without the embedding model: when `npm start` cannot load it (no network and no KB_MODEL_DIR),
 * the demo knowledge base is still stored — chunked, searchable by its words — instead of leaving every
 * question with "the knowledge base is empty". Its chunks have no embeddings, so the documents stay stale in
 * `document_state`, and the first ingestion that can load the model chunks and embeds them again.
 */
import type { Preparer } from './pool.ts';
import { prepareWordsOnly } from './prepare.ts';

/** [CLS] and [SEP]: the chunker subtracts what an empty text counts. */
const SPECIAL_TOKENS = 2;
/** Letters of a word that one word piece covers, at most, in this estimate. */
const LETTERS_PER_PIECE = 4;
/** Words up to this long count as one piece (most common English words are in the vocabulary whole). */
const WHOLE_WORD_LETTERS = 6;

/**
 * An estimate of a BERT tokenizer's word pieces, without its vocabulary: its pre-tokenizer splits on
 * whitespace and makes every punctuation mark and every CJK character a token of its own; a longer word is
 * counted as if split every few letters. It over-counts more often than not (`words-only.test.ts` compares it
 * with the real MiniLM tokenizer), which only makes chunks smaller; they are re-chunked with the real
 * tokenizer before they are ever embedded.
 */
export function estimateWordPieces(text: string): number {
  let pieces = SPECIAL_TOKENS;
  for (const match of text.matchAll(
    /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{M}\p{N}]+|[^\s\p{L}\p{M}\p{N}]/gu,
  )) {
    const word = match[0];
    pieces +=
      word.length <= WHOLE_WORD_LETTERS ? 1 : 1 + Math.ceil((word.length - WHOLE_WORD_LETTERS) / LETTERS_PER_PIECE);
  }
  return pieces;
}

/** Prepares documents for keyword search only: parsed and chunked here, no model, no embeddings. */
export function wordsOnlyPreparer(): Preparer {
  return {
    parallelism: 1,
    prepare: (task) => prepareWordsOnly(task, estimateWordPieces),
    close: async () => {},
  };
}
