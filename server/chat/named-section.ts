/**
 * A section the question names. Retrieval often returns several sections of the answering page, and the one
 * that holds the value asked is not always ranked first: "What is the default value of build.outDir?" ranks
 * `build.ssrManifest` first (its text mentions `build.outDir`), and extraction, which discounts each chunk by
 * its rank (CHUNK_RANK_PENALTY), quoted that option's ``**Default:** `false` ``. A section whose own heading is
 * made only of the question's words (`build.outDir` → "build", "outdir"; "How to ask for help") is what the
 * question is about, so a unit of it that holds what is asked is discounted as if it came from the page's
 * best-ranked chunk instead.
 *
 * Measured on the docs-QA tuning sets, leave one site out (docs/retrieval-and-answers.md, "Round 7: the
 * sentence with the value").
 */
import type { ChunkMatch } from '../store/types.ts';
import { contentWords } from './text.ts';

/**
 * Fewest heading words: one shared word ("Caching", "Volumes") names too broad a section. Headings of one
 * word lifted every unit of a type-holding section; on Vite's tuning set that cost an answer.
 */
export const NAMED_HEADING_WORDS = 2;

/**
 * Content words with camelCase identifiers split (`build.cssMinify` → "build", "css", "minify"), for the
 * heading and the question alike: otherwise "Which tool minifies CSS by default in a build?" names
 * `build.minify` but not `build.cssMinify`, the option it asks about.
 */
export function identifierWords(text: string): string[] {
  return [...new Set(contentWords(text.replace(/(\p{Ll}|\d)(\p{Lu})/gu, '$1 $2')))];
}

/** The words of a chunk's own (deepest) heading. */
export function ownHeadingWords(chunk: ChunkMatch): string[] {
  const path = chunk.meta.heading_path;
  const last = Array.isArray(path) && path.length > 0 ? path[path.length - 1] : chunk.meta.section?.split(' › ').pop();
  return typeof last === 'string' ? identifierWords(last) : [];
}

/**
 * For each chunk (retrieval order), the rank its value-holding units are discounted by: the rank of the first
 * chunk of the same page when the chunk's own heading has at least NAMED_HEADING_WORDS words, all of them the
 * question's (`own`: identifierWords of the question), and is not just the page's title (the page's opening section names the page, not a part
 * of it: "Dependency Pre-Bundling" for a question about pre-bundling in production); null otherwise.
 */
export function namedSectionRanks(chunks: ChunkMatch[], own: Set<string>): (number | null)[] {
  return chunks.map((chunk, c) => {
    if (!namesSection(chunk, own)) return null;
    const first = chunks.findIndex((x) => x.document_id === chunk.document_id);
    return first < c ? first : null;
  });
}

/** Does the question name this chunk's section (the rule of namedSectionRanks)? */
export function namesSection(chunk: ChunkMatch, own: Set<string>): boolean {
  const words = ownHeadingWords(chunk);
  if (words.length < NAMED_HEADING_WORDS || !words.every((w) => own.has(w))) return false;
  const title = new Set(identifierWords(chunk.document_title));
  return !words.every((w) => title.has(w));
}
