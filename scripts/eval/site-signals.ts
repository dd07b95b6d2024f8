/**
 * `npx tsx scripts/eval/site-signals.ts <out.json> <qa.json>...`: the candidates every question of the docs-QA
 * sets gets from the search (hybrid, vector and lexical, before any gate or ordering), saved with the
 * answering page of each, so ordering rules (retrieval/fields.ts) and gate thresholds (retrieval/gate.ts) can be
 * compared per site without re-ingesting a corpus for every value tried (site-sweep.ts reads the file).
 * Embeddings: KB_EMBED_MODEL / KB_MODEL_DIR, default the test double, as `npm run eval`.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RetrievalMode } from '../../protocol/index.ts';
import { readConfig } from '../../server/config/index.ts';
import { createEmbedder } from '../../server/ingest/embedder.ts';
import { gatherEvidence } from '../../server/retrieval/index.ts';
import type { SearchChunkRow } from '../../server/store/types.ts';
import { readQaFile } from './docs-qa.ts';
import { buildKb } from './squad.ts';

/** A candidate as the search returned it, with its page's path in the corpus. */
export type SignalRow = SearchChunkRow & { source: string };

export interface SiteQuestion {
  q: string;
  /** The answering page; null for an off-topic question. */
  source: string | null;
  /** File the question came from (tuning and held-out sets are kept apart by it). */
  set: string;
  rows: Record<RetrievalMode, SignalRow[]>;
}

export interface SiteSignals {
  corpus: string;
  questions: SiteQuestion[];
}

const CLAIMS = { sub: '00000000-0000-0000-0000-000000000000', role: 'authenticated' };
const MODES: RetrievalMode[] = ['hybrid', 'vector', 'lexical'];

async function collect(files: string[], save: (sites: SiteSignals[]) => Promise<void>): Promise<SiteSignals[]> {
  const env = readConfig(process.env);
  const embedder = await createEmbedder({
    model: process.env.KB_EMBED_MODEL ? env.embedModel : 'test-double/bert-384',
    modelDir: process.env.KB_MODEL_DIR ? env.modelDir : 'test/fixtures/models',
  });
  const byCorpus = new Map<string, { file: string; q: string; source: string | null }[]>();
  for (const file of files) {
    const qa = await readQaFile(file);
    const set = path.basename(file, '.json');
    const list = byCorpus.get(qa.corpus) ?? [];
    list.push(...qa.items.map((i) => ({ file: set, q: i.q, source: i.source })));
    list.push(...qa.out_of_kb.map((q) => ({ file: set, q, source: null })));
    byCorpus.set(qa.corpus, list);
  }
  const out: SiteSignals[] = [];
  for (const [corpus, items] of byCorpus) {
    const kb = await buildKb(path.resolve(corpus), embedder);
    try {
      const sourceOf = new Map((await kb.store.listDocuments()).map((d) => [d.id, d.source]));
      const embeddings = await embedder.embed(items.map((i) => i.q));
      const questions: SiteQuestion[] = [];
      for (const [i, item] of items.entries()) {
        const rows = {} as Record<RetrievalMode, SignalRow[]>;
        for (const mode of MODES) {
          const found = await gatherEvidence(
            kb.store,
            { claims: CLAIMS, question: item.q, ...(mode === 'lexical' ? {} : { embedding: embeddings[i] }) },
            { mode },
          );
          rows[mode] = found.rows.map((r) => ({ ...r, source: sourceOf.get(r.document_id) ?? '?' }));
        }
        questions.push({ q: item.q, source: item.source, set: item.file, rows });
      }
      out.push({ corpus, questions });
      await save(out);
    } finally {
      await kb.close();
    }
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [outFile, ...files] = process.argv.slice(2);
  if (!outFile || files.length === 0) {
    console.error('usage: npx tsx scripts/eval/site-signals.ts <out.json> <qa.json>...');
    process.exit(2);
  }
  await collect(files, (sites) => writeFile(outFile, JSON.stringify(sites)));
  console.error(`wrote ${outFile}`);
}
