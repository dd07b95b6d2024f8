import type { SearchChunkRow } from '../store/types.ts';

/**
 * A search result row as `search_chunks` returns it, for the tests of the ranking code that reads one: the
 * fields a test names, the rest empty (no URL, no metadata, no ranks).
 */
export function searchRow(fields: Pick<SearchChunkRow, 'document_id'> & Partial<SearchChunkRow>): SearchChunkRow {
  return {
    chunk_id: fields.document_id,
    content: fields.document_id,
    meta: {},
    document_title: fields.document_id,
    document_url: null,
    document_meta: {},
    cosine: 0,
    bm25: null,
    coverage: 0,
    vector_rank: null,
    lexical_rank: null,
    score: 0,
    ...fields,
  };
}
