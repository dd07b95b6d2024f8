/**
 * The demo knowledge base of `npm start`: ingested on the first run, and embedded later if it was stored
 * without the model. A first start without network access (and without KB_MODEL_DIR) cannot load the model;
 * the demo is then stored for keyword search only, so questions are answered by their words instead of
 * "the knowledge base is empty", and each later start that can load the model embeds those documents.
 */
import { relative } from 'node:path';
import type { Embedder } from '../../ingest/embedder.ts';
import { EmbedderLoadError } from '../../ingest/embedder.ts';
import { resolveInputs } from '../../ingest/files.ts';
import { ingest, type IngestSummary } from '../../ingest/pipeline.ts';
import type { OpenStore } from '../../store/sql-store.ts';

export interface DemoOptions {
  store: OpenStore;
  embedder: () => Promise<Embedder>;
  model: string;
  /** The demo's folder (DEMO_KB_DIR). */
  dir: string;
  log?: (line: string) => void;
  warn?: (line: string) => void;
}

/** What the start did with the demo: nothing, ingested it with the model, or stored it for keyword search. */
export type DemoOutcome = 'present' | 'embedded' | 'words-only' | 'failed';

/**
 * An empty knowledge base gets the demo; a demo stored without the model (or with another model) gets embedded
 * once the model loads. Documents the owner deleted are not brought back: only demo files still stored are
 * ingested again. Never throws: the server starts whatever happens here.
 */
export async function ensureDemo(options: DemoOptions): Promise<DemoOutcome> {
  const { store, dir, log = console.log, warn = console.warn } = options;
  try {
    if ((await store.kbStats()).documents === 0) {
      log(`First run: ingesting the demo knowledge base (${relative(process.cwd(), dir)}) …`);
      return await ingestDemo(options, [dir], 'first');
    }
    const stale = await staleDemoFiles(options);
    if (stale.length === 0) return 'present';
    log(
      `The demo knowledge base is stored without embeddings of ${options.model}: embedding ${stale.length} documents …`,
    );
    return await ingestDemo(options, stale, 'again');
  } catch (error) {
    // Also when storing it without the model fails: the server starts with whatever was stored.
    warn(`\n⚠  The demo knowledge base could not be ingested. ${message(error)}\n`);
    return 'failed';
  }
}

async function ingestDemo(options: DemoOptions, inputs: string[], run: 'first' | 'again'): Promise<DemoOutcome> {
  const { store, model, log = console.log, warn = console.warn } = options;
  try {
    const summary = checked(await ingest({ store, embedder: options.embedder, model, inputs }));
    log(`Ingested ${summary.added + summary.updated} documents, ${summary.chunks} chunks.`);
    return 'embedded';
  } catch (error) {
    if (!(error instanceof EmbedderLoadError)) throw error;
    // The embedder's own message says what to set (KB_MODEL_DIR, network, the offline test model).
    if (run === 'again') {
      warn(`The model still cannot be loaded; the demo keeps answering by its words. ${firstLine(error)}`);
      return 'words-only';
    }
    const summary = checked(await ingest({ store, model, inputs, wordsOnly: true }));
    warn(
      [
        '',
        `⚠  ${error.message}`,
        `   The demo knowledge base is stored without embeddings (${summary.chunks} chunks): questions are answered`,
        '   by their words until the model can be loaded; the next start that loads it embeds the demo.',
        '',
      ].join('\n'),
    );
    return 'words-only';
  }
}

/** Demo files whose stored document lacks embeddings of the model. */
async function staleDemoFiles({ store, model, dir }: DemoOptions): Promise<string[]> {
  const { files } = await resolveInputs([dir]);
  const stale: string[] = [];
  for (const file of files) {
    const state = await store.documentState(file.source, model);
    if (state && state.stale_embeddings > 0) stale.push(file.file);
  }
  return stale;
}

function checked(summary: IngestSummary): IngestSummary {
  if (summary.failed.length > 0) throw new Error(summary.failed.map((f) => `${f.source}: ${f.error}`).join('\n'));
  return summary;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function firstLine(error: Error): string {
  return error.message.split('\n')[0] ?? '';
}
