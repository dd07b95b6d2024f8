/** The embedder ingest() is given, loaded only when some document needs embedding. */
import type { Embedder } from './embedder.ts';

export async function missingEmbedder(): Promise<Embedder> {
  throw new Error('ingest() needs an embedder or a preparer');
}

/** Memoised embedder; a function is only called on first use, a rejected promise never goes unhandled. */
export function lazyEmbedder(
  source: Embedder | Promise<Embedder> | (() => Promise<Embedder>),
  onLoad: () => void,
): () => Promise<Embedder> {
  if (source instanceof Promise) source.catch(() => {});
  let loading: Promise<Embedder> | null = null;
  return () => {
    if (!loading) {
      onLoad();
      loading = typeof source === 'function' ? source() : Promise.resolve(source);
    }
    return loading;
  };
}
