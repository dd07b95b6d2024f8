/**
 * A retrieved chunk as extraction receives it (`ChunkMatch`), for tests that hand extraction a few passages
 * they write: every field a test does not name gets the value the extraction tests always used (its id as
 * its document, a title made from it, no URL, similarity 0.5).
 */
import type { ChunkMatch } from '../store/types.ts';

export function chunkMatch(
  id: string,
  content: string,
  meta: ChunkMatch['meta'] = {},
  document_id = id,
  similarity = 0.5,
): ChunkMatch {
  return {
    chunk_id: id,
    content,
    meta,
    document_id,
    document_title: `Doc ${document_id}`,
    document_url: null,
    similarity,
  };
}
