/**
 * The answer from the cited page. Retrieval returns a few sections, at most one chunk each, ranked as whole
 * passages; the section of a page that holds the fact is often not among them (the page's introduction
 * matched the question's words better), or among them but ranked below another section, where extraction's
 * rank discount (extract.ts CHUNK_RANK_PENALTY) outweighs its better sentence. Once extraction has chosen the
 * page to answer from (its first citation), the page is searched alone for the question (one more
 * `search_chunks` call, filtered to that document). Its sections whose heading names what the question asks
 * ("Supported identity providers" for "Does SAML SSO work with JumpCloud?") are discounted as the page's
 * best-ranked section; the others keep retrieval's rank (or come last, when retrieval did not return them).
 * The answer extracted so is kept only when it holds every question word the first one held and one more:
 * a sibling section that repeats the same words (another block of the same page) does not replace the
 * answer retrieval's best section gave.
 */
import type { RetrievalMode } from '../../protocol/index.ts';
import { evidenceOf } from '../retrieval/gate.ts';
import type { ChatStore, ChunkMatch, JwtClaims, SearchChunkRow } from '../store/types.ts';
import { contentWords } from './text.ts';

/** Sections of the cited page fetched at most (the page search's first rows). */
export const PAGE_SECTIONS = 8;

export interface PageQuestion {
  claims: JwtClaims;
  question: string;
  embedding?: number[];
}

/**
 * The cited page's chunks, best first for the question: `search_chunks` filtered to the one document, by
 * cosine when the question has an embedding. The vector branch then scans only that document's chunks,
 * while the full-text branch runs its probe over the whole knowledge base and filters by document after it
 * (kb_search_chunks), as costly as the first search's. Without an embedding, full text.
 */
export function pageSearch(store: ChatStore, input: PageQuestion, documentId: string): Promise<SearchChunkRow[]> {
  const embedding = input.embedding ?? null;
  return store.searchChunks(input.claims, {
    embedding,
    text: input.question,
    count: PAGE_SECTIONS * 2,
    mode: embedding === null ? 'lexical' : 'vector',
    filters: { document_ids: [documentId] },
  });
}

/** What extraction reads once the page step ran: the chunks, and each chunk's rank for the discount. */
export interface PageLayout {
  chunks: ChunkMatch[];
  /** Per chunk, the rank its units are discounted by (extract.ts): the page's sections share its best rank. */
  ranks: number[];
  /** The first `retrieved` chunks are retrieval's; only they may be offered as related sources. */
  retrieved: number;
}

const sectionOf = (c: Pick<ChunkMatch, 'document_id' | 'meta'>) =>
  `${c.document_id}\u0000${c.meta.section ?? c.meta.anchor ?? ''}`;

/**
 * Retrieval's chunks with the cited page's other sections added after them (one chunk per section, at most
 * PAGE_SECTIONS, in the page search's order). A section of the page whose heading names what the question
 * asks (`namesQuestion`) is discounted as the page's best-ranked chunk; the rest keep their index.
 * `page`: the page search's rows for `documentId`.
 */
export function withPage(
  question: string,
  chunks: ChunkMatch[],
  documentId: string,
  page: SearchChunkRow[],
  mode: RetrievalMode,
): PageLayout {
  const first = chunks.findIndex((c) => c.document_id === documentId);
  const rank = first < 0 ? chunks.length : first;
  const seen = new Set(chunks.map(sectionOf));
  const added: ChunkMatch[] = [];
  for (const row of page) {
    if (row.document_id !== documentId || added.length >= PAGE_SECTIONS) continue;
    const key = sectionOf(row);
    if (seen.has(key)) continue;
    seen.add(key);
    added.push({
      chunk_id: row.chunk_id,
      content: row.content,
      meta: row.meta,
      document_id: row.document_id,
      document_title: row.document_title,
      document_url: row.document_url,
      similarity: evidenceOf(row, mode),
    });
  }
  const own = new Set(contentWords(question));
  const all = [...chunks, ...added];
  return {
    chunks: all,
    ranks: all.map((c, i) => (c.document_id === documentId && namesQuestion(c, own) ? Math.min(i, rank) : i)),
    retrieved: chunks.length,
  };
}

/**
 * Does the section's own heading (the last of its path) name what the question asks: every one of its
 * content words is one of the question's ("Site language" for "What is the default site language?", not
 * "server.ws" for "Which files will the dev server refuse to serve?", nor "Configuration").
 */
export function namesQuestion(chunk: Pick<ChunkMatch, 'meta'>, own: Set<string>): boolean {
  const path = chunk.meta.heading_path;
  const last = Array.isArray(path) && path.length > 0 ? path[path.length - 1] : chunk.meta.section?.split(' › ').pop();
  if (typeof last !== 'string') return false;
  const words = new Set(contentWords(last));
  return words.size > 0 && [...words].every((w) => own.has(w));
}

/** The question's content words an answer's text holds (its citation markers aside). */
export function wordsHeld(text: string, own: Set<string>): Set<string> {
  const words = new Set(contentWords(text.replace(/\[\d+\]/g, ' ')));
  return new Set([...own].filter((w) => words.has(w)));
}

/** An answer and the chunks it was extracted from (generative mode sends the cited ones' text). */
export interface PageAnswer<A> {
  answer: A;
  chunks: ChunkMatch[];
}

/**
 * Extracts from retrieval's chunks, then once more with the cited page's sections (one page search); the
 * second answer is kept when it adds a question word and drops none. An answer without citations is
 * returned as it is, with no search, as is one that already holds every content word of the question (the
 * second could not add one); so is one whose page search fails.
 */
export async function answerFromPage<A extends { text: string; citations: { document_id: string }[] }>(
  store: ChatStore,
  input: PageQuestion,
  found: { chunks: ChunkMatch[]; mode: RetrievalMode },
  extract: (chunks: ChunkMatch[], layout?: PageLayout) => A,
): Promise<PageAnswer<A>> {
  const first = extract(found.chunks);
  const documentId = first.citations[0]?.document_id;
  if (documentId === undefined) return { answer: first, chunks: found.chunks };
  // An answer that holds every content word of the question cannot gain one: no search (the cost).
  const own = new Set(contentWords(input.question));
  if (wordsHeld(first.text, own).size === own.size) return { answer: first, chunks: found.chunks };
  // The first answer is complete: a page search that fails (a transient store error) leaves it as it is
  // rather than failing the visitor's turn.
  const rows = await pageSearch(store, input, documentId).catch(() => null);
  if (rows === null) return { answer: first, chunks: found.chunks };
  return betterFromPage(input.question, found, first, documentId, rows, extract);
}

/**
 * The page step once the page search's rows are in (what the eval's replay runs on saved rows): the second
 * answer is kept only when it holds every question word the first held and at least one more.
 */
export function betterFromPage<A extends { text: string }>(
  question: string,
  found: { chunks: ChunkMatch[]; mode: RetrievalMode },
  first: A,
  documentId: string,
  rows: SearchChunkRow[],
  extract: (chunks: ChunkMatch[], layout?: PageLayout) => A,
): PageAnswer<A> {
  const layout = withPage(question, found.chunks, documentId, rows, found.mode);
  const second = extract(layout.chunks, layout);
  const own = new Set(contentWords(question));
  const before = wordsHeld(first.text, own);
  const after = wordsHeld(second.text, own);
  // Every word the first answer held, and one more: a sibling section quoted in place of the one that
  // answered, or beside it with nothing the first answer lacked, is no better for the visitor.
  return [...before].every((w) => after.has(w)) && after.size > before.size
    ? { answer: second, chunks: layout.chunks }
    : { answer: first, chunks: found.chunks };
}
