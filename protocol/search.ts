/** `POST /api/search`: raw ranked chunks, no answer. */
import * as v from 'valibot';
import { EmbeddingSchema, RetrievalModeSchema } from './chat.ts';

export const SearchFiltersSchema = v.object({
  document_ids: v.optional(v.array(v.pipe(v.string(), v.uuid()))),
  source_types: v.optional(v.array(v.string())),
  tags: v.optional(v.array(v.string())),
  languages: v.optional(v.array(v.string())),
  date_from: v.optional(v.pipe(v.string(), v.isoTimestamp())),
  date_to: v.optional(v.pipe(v.string(), v.isoTimestamp())),
});
export type SearchFilters = v.InferOutput<typeof SearchFiltersSchema>;

export const SearchRequestSchema = v.object({
  embedding: v.optional(EmbeddingSchema),
  query_text: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(2000))),
  top_k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50)), 8),
  mode: v.optional(RetrievalModeSchema),
  filters: v.optional(SearchFiltersSchema, {}),
});
export type SearchRequest = v.InferOutput<typeof SearchRequestSchema>;

export const SearchResultSchema = v.object({
  rank: v.number(),
  score: v.number(),
  /** At most 200 characters. */
  snippet: v.string(),
  title: v.string(),
  url: v.nullable(v.string()),
  meta: v.record(v.string(), v.unknown()),
  chunk_id: v.string(),
  document_id: v.string(),
});
export type SearchResult = v.InferOutput<typeof SearchResultSchema>;

export const SearchResponseSchema = v.object({
  results: v.array(SearchResultSchema),
  total_found: v.number(),
  processing_time_ms: v.number(),
});
export type SearchResponse = v.InferOutput<typeof SearchResponseSchema>;
