/**
 * Ranked search over the knowledge base (`POST /api/search`): one `search_chunks` call, rows
 * turned into the wire shape. The mode falls back to what the request can support: no embedding → lexical,
 * no text → vector.
 */
import type { RetrievalMode, SearchFilters } from '../../protocol/index.ts';
import type { ChatStore, ChunkMeta, JwtClaims, SearchChunkRow } from '../store/types.ts';

export interface SearchInput {
  claims: JwtClaims;
  question?: string | null;
  embedding?: number[] | null;
  /** Default: hybrid when both text and embedding are given. */
  mode?: RetrievalMode;
  topK: number;
  filters?: SearchFilters;
  /** Candidates per list before fusion. Default max(50, topK). */
  candidates?: number;
}

export interface SearchHit {
  /** 1-based. */
  rank: number;
  /** RRF (hybrid), cosine (vector) or BM25 (lexical): comparable within one response only. */
  score: number;
  chunk_id: string;
  document_id: string;
  content: string;
  title: string;
  url: string | null;
  meta: ChunkMeta;
  document_meta: Record<string, unknown>;
  cosine: number | null;
  coverage: number | null;
}

export interface SearchOutput {
  mode: RetrievalMode;
  results: SearchHit[];
}

/** The mode a request can be served in. */
export function effectiveMode(
  requested: RetrievalMode | undefined,
  hasText: boolean,
  hasEmbedding: boolean,
): RetrievalMode {
  if (!hasEmbedding) return 'lexical';
  if (!hasText) return 'vector';
  return requested ?? 'hybrid';
}

/**
 * @example
 * const { results } = await search(store, { claims, question: 'refund policy', topK: 8, filters: { tags: ['billing'] } });
 */
export async function search(store: ChatStore, input: SearchInput): Promise<SearchOutput> {
  const text = input.question?.trim() || null;
  const embedding = input.embedding ?? null;
  const mode = effectiveMode(input.mode, text !== null, embedding !== null);
  if (text === null && embedding === null) return { mode, results: [] };
  const rows = await store.searchChunks(input.claims, {
    embedding,
    text,
    count: input.topK,
    mode,
    filters: sqlFilters(input.filters),
    candidates: input.candidates ?? Math.max(50, input.topK),
  });
  return { mode, results: rows.map(toHit) };
}

/** Only the filters that filter: empty arrays and absent keys are left out (SQL treats absent as "any"). */
export function sqlFilters(filters: SearchFilters | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!filters) return out;
  for (const key of ['document_ids', 'source_types', 'tags', 'languages'] as const) {
    const values = filters[key];
    if (values && values.length > 0) out[key] = values;
  }
  if (filters.date_from) out.date_from = filters.date_from;
  if (filters.date_to) out.date_to = filters.date_to;
  return out;
}

function toHit(row: SearchChunkRow, index: number): SearchHit {
  return {
    rank: index + 1,
    score: row.score,
    chunk_id: row.chunk_id,
    document_id: row.document_id,
    content: row.content,
    title: row.document_title,
    url: row.meta.url ?? row.document_url ?? null,
    meta: row.meta,
    document_meta: row.document_meta,
    cosine: row.cosine,
    coverage: row.coverage,
  };
}
