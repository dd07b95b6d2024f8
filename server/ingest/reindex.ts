/**
 * Re-embedding after a model change: every document with chunks not embedded by `model` gets all its
 * chunks embedded again from the stored text, with the same context line the pipeline embeds
 * ("Title › Section"), and written in one call per document (kb_set_embeddings).
 */
import type { IngestStore } from '../store/types.ts';
import { contextLine } from './chunker.ts';
import type { Embedder } from './embedder.ts';

export interface ReindexOptions {
  store: IngestStore;
  model: string;
  /** Called only when something is stale. */
  embedder: () => Promise<Embedder>;
  dryRun?: boolean;
  onDocument?: (source: string, chunks: number) => void;
}

export interface ReindexSummary {
  documents: number;
  chunks: number;
  seconds: number;
  dry_run: boolean;
}

export async function reindex({
  store,
  model,
  embedder,
  dryRun = false,
  onDocument,
}: ReindexOptions): Promise<ReindexSummary> {
  const started = performance.now();
  const stale = await store.staleDocuments(model);
  const summary: ReindexSummary = { documents: 0, chunks: 0, seconds: 0, dry_run: dryRun };
  let loaded: Embedder | null = null;
  for (const doc of stale) {
    if (dryRun) {
      summary.documents += 1;
      summary.chunks += doc.stale;
      onDocument?.(doc.source, doc.stale);
      continue;
    }
    loaded ??= await embedder();
    const chunks = await store.documentChunks(doc.id);
    const texts = chunks.map((c) => {
      const path = Array.isArray(c.meta.heading_path) ? (c.meta.heading_path as string[]) : [];
      return `${contextLine(doc.name, path)}\n\n${c.content}`;
    });
    const vectors = await loaded.embed(texts);
    const written = await store.setEmbeddings(
      model,
      chunks.map((c, i) => ({ chunk_id: c.chunk_id, embedding: vectors[i]! })),
    );
    summary.documents += 1;
    summary.chunks += written;
    onDocument?.(doc.source, written);
  }
  if (summary.documents > 0 && !dryRun) await store.optimize();
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}
