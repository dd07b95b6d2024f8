/**
 * Ingestion: files → documents → chunks → embeddings → `ingest_document` (one atomic call per document).
 *
 * Re-running is cheap and safe. A document whose stored checksum matches the file's bytes, with every chunk
 * embedded by the configured model, is skipped before it is even parsed; the model is loaded only when
 * some document needs embedding. A document interrupted half-way has no checksum (the SQL function writes
 * it last), so the next run does it again.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { IngestStore } from '../store/types.ts';
import { chunkDocument, DEFAULT_MAX_TOKENS } from './chunker.ts';
import type { DocumentDefaults, ParsedDocument } from './document.ts';
import type { Embedder } from './embedder.ts';
import { resolveInputs, type InputFile } from './files.ts';
import { parseMarkdown } from './markdown.ts';
import { parseText } from './text.ts';

export type Outcome = 'added' | 'updated' | 'unchanged' | 'failed';

export type IngestProgress =
  | { type: 'start'; total: number }
  | { type: 'loading-model' }
  | { type: 'document'; source: string; outcome: Outcome; chunks: number; error?: string; done: number; total: number };

export interface IngestOptions {
  store: IngestStore;
  /** The embedder, a promise of it, or a function creating it: a function is called only when needed. */
  embedder: Embedder | Promise<Embedder> | (() => Promise<Embedder>);
  /** Model id recorded with each embedding (KB_EMBED_MODEL). */
  model: string;
  /** Files and folders. */
  inputs: string[];
  /** Builds citation links for documents without a `url` in their front matter. */
  baseUrl?: string | null;
  onProgress?: (event: IngestProgress) => void;
  /** Source ids are relative to this folder. Default: process.cwd(). */
  cwd?: string;
}

export interface IngestSummary {
  added: number;
  updated: number;
  unchanged: number;
  failed: { source: string; error: string }[];
  /** Files inside the given folders skipped for their extension. */
  skipped: string[];
  /** Chunks written by this run. */
  chunks: number;
  seconds: number;
}

/**
 * Ingests files and folders into the store. Per-file problems (unreadable, unsupported, a database error)
 * are reported in `failed` and the other files continue; a model that cannot be loaded throws
 * (EmbedderLoadError), since every remaining file would fail the same way.
 *
 * @example
 * const summary = await ingest({ store, model, inputs: ['docs'], embedder: () => createEmbedder({ model, modelDir }) });
 */
export async function ingest(options: IngestOptions): Promise<IngestSummary> {
  const started = performance.now();
  const { store, model, onProgress } = options;
  const getEmbedder = lazyEmbedder(options.embedder, () => onProgress?.({ type: 'loading-model' }));
  const { files, invalid, skipped } = await resolveInputs(options.inputs, options.cwd);
  const summary: IngestSummary = { added: 0, updated: 0, unchanged: 0, failed: [...invalid], skipped, chunks: 0, seconds: 0 };
  const total = files.length + invalid.length;
  let done = 0;
  onProgress?.({ type: 'start', total });
  for (const failure of invalid) {
    onProgress?.({ type: 'document', source: failure.source, outcome: 'failed', chunks: 0, error: failure.error, done: ++done, total });
  }
  for (const file of files) {
    let outcome: Outcome;
    let chunks = 0;
    let error: string | undefined;
    try {
      ({ outcome, chunks } = await ingestFile(file, { store, model, getEmbedder, baseUrl: options.baseUrl ?? null }));
    } catch (caught) {
      if (caught instanceof Error && caught.name === 'EmbedderLoadError') throw caught;
      outcome = 'failed';
      error = caught instanceof Error ? caught.message : String(caught);
      summary.failed.push({ source: file.source, error });
    }
    if (outcome !== 'failed') summary[outcome] += 1;
    summary.chunks += chunks;
    onProgress?.({ type: 'document', source: file.source, outcome, chunks, done: ++done, total, ...(error ? { error } : {}) });
  }
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

interface FileContext {
  store: IngestStore;
  model: string;
  getEmbedder: () => Promise<Embedder>;
  baseUrl: string | null;
}

async function ingestFile(file: InputFile, ctx: FileContext): Promise<{ outcome: Outcome; chunks: number }> {
  const bytes = await readFile(file.file);
  const checksum = createHash('sha256').update(bytes).digest('hex');
  const state = await ctx.store.documentState(file.source, ctx.model);
  if (state?.status === 'ready' && state.checksum === checksum && state.stale_embeddings === 0) {
    return { outcome: 'unchanged', chunks: 0 };
  }
  const doc = parse(file, decode(bytes), ctx.baseUrl);
  const embedder = await ctx.getEmbedder();
  // An empty document is still stored (with no chunks): if it had content before, that must disappear.
  const chunks = chunkDocument(doc, { countTokens: (t) => embedder.countTokens(t) });
  const embeddings = chunks.length > 0 ? await embedder.embed(chunks.map((c) => c.embedText)) : [];
  await ctx.store.ingestDocument({
    source: file.source,
    name: doc.title,
    meta: {
      url: doc.url,
      description: doc.description,
      source_type: doc.format,
      file_name: path.basename(file.file),
      chunker: { max_tokens: DEFAULT_MAX_TOKENS },
    },
    checksum,
    model: ctx.model,
    chunks: chunks.map((chunk, i) => ({ content: chunk.content, meta: chunk.meta, embedding: embeddings[i]! })),
  });
  return { outcome: state ? 'updated' : 'added', chunks: chunks.length };
}

function decode(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error('not valid UTF-8 text (is it a binary file, or saved in another encoding?)');
  }
  if (text.includes('\0')) throw new Error('not a text file (contains NUL bytes)');
  return text;
}

function parse(file: InputFile, text: string, baseUrl: string | null): ParsedDocument {
  const defaults: DocumentDefaults = {
    fileTitle: path.basename(file.file, path.extname(file.file)),
    url: baseUrl ? joinUrl(baseUrl, file.urlPath) : null,
  };
  return file.format === 'markdown' ? parseMarkdown(text, defaults) : parseText(text, defaults);
}

function joinUrl(base: string, urlPath: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return urlPath ? `${trimmed}/${urlPath}` : trimmed;
}

/** Memoised embedder; a function is only called on first use, a rejected promise never goes unhandled. */
function lazyEmbedder(source: IngestOptions['embedder'], onLoad: () => void): () => Promise<Embedder> {
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
