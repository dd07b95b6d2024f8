/**
 * One source's bytes → what `ingest_document` stores: parse (by format), chunk with the model's tokenizer,
 * embed. Pure apart from the embedder, so it runs the same in the main thread and in pool workers.
 */
import type { IngestChunk } from '../store/types.ts';
import { chunkDocument, DEFAULT_MAX_TOKENS, DEFAULT_OVERLAP_TOKENS, type Chunk } from './chunker.ts';
import type { DocumentDefaults, ParsedDocument, SourceType } from './document.ts';
import type { Embedder } from './embedder.ts';
import { parseHtml } from './html.ts';
import { parseMarkdown } from './markdown.ts';
import { parsePdf } from './pdf.ts';
import { parseText } from './text.ts';

export interface PrepareTask {
  bytes: Uint8Array;
  format: SourceType;
  defaults: DocumentDefaults;
  /** Recorded in the document's meta (a file name, or the fetched URL). */
  origin: Record<string, unknown>;
}

export interface PreparedDocument {
  name: string;
  meta: Record<string, unknown>;
  chunks: IngestChunk[];
}

/** Parses and chunks (no embedding): also what `--dry-run` uses to count chunks. */
export async function parseSource(task: Pick<PrepareTask, 'bytes' | 'format' | 'defaults'>): Promise<ParsedDocument> {
  const { bytes, format, defaults } = task;
  switch (format) {
    case 'pdf':
      return parsePdf(bytes, defaults);
    case 'html':
      return parseHtml(decode(bytes), defaults);
    case 'markdown':
      return parseMarkdown(decode(bytes), defaults);
    default:
      return parseText(decode(bytes), defaults);
  }
}

export async function prepareDocument(task: PrepareTask, embedder: Embedder): Promise<PreparedDocument> {
  const doc = await parseSource(task);
  // An empty document is still stored (with no chunks): if it had content before, that must disappear.
  const chunks = chunkDocument(doc, { countTokens: (t) => embedder.countTokens(t) });
  const embeddings = chunks.length > 0 ? await embedder.embed(chunks.map((c) => c.embedText)) : [];
  return prepared(task, doc, chunks, (i) => embeddings[i]!);
}

/**
 * Parses and chunks without a model: chunks sized by `countTokens` (an estimate of the model's word pieces)
 * and stored without embeddings, for keyword search until the model can be loaded.
 */
export async function prepareWordsOnly(
  task: PrepareTask,
  countTokens: (text: string) => number,
): Promise<PreparedDocument> {
  const doc = await parseSource(task);
  return prepared(task, doc, chunkDocument(doc, { countTokens }), () => null);
}

function prepared(
  task: PrepareTask,
  doc: ParsedDocument,
  chunks: Chunk[],
  embedding: (index: number) => number[] | null,
): PreparedDocument {
  return {
    name: doc.title,
    meta: {
      url: doc.url,
      description: doc.description,
      source_type: doc.format,
      tags: doc.tags ?? [],
      language: doc.language ?? null,
      ...(doc.publishedAt ? { published_at: doc.publishedAt } : {}),
      ...task.origin,
      chunker: { max_tokens: DEFAULT_MAX_TOKENS, overlap_tokens: DEFAULT_OVERLAP_TOKENS },
    },
    chunks: chunks.map((chunk, i) => ({ content: chunk.content, meta: chunk.meta, embedding: embedding(i) })),
  };
}

export function decode(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error('not valid UTF-8 text (is it a binary file, or saved in another encoding?)');
  }
  if (text.includes('\0')) throw new Error('not a text file (contains NUL bytes)');
  return text;
}
