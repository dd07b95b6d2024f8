/**
 * One benchmark knowledge base: the corpus written to a temp folder, ingested by the real pipeline into a
 * fresh PGlite data directory, the way `npm run ingest` does it (a worker pool of embedding threads, one
 * per core). The pool is started before ingest() so the ingest rate excludes the model load, as the CLI's
 * "chunks/s after a … s model load" does; the load time is reported on its own.
 */
import { readdir, lstat, rm } from 'node:fs/promises';
import path from 'node:path';
import { ingest } from '../../server/ingest/pipeline.ts';
import { createWorkerPool } from '../../server/ingest/pool.ts';
import { openPgliteStore } from '../../server/store/pglite.ts';
import { writeCorpus } from './corpus.ts';

export const BENCH_MODEL = 'test-double/bert-384';
export const BENCH_MODEL_DIR = 'test/fixtures/models';

export interface BuiltKb {
  dataDir: string;
  documents: number;
  chunks: number;
  failed: number;
  corpus_write_seconds: number;
  model_load_seconds: number;
  ingest_seconds: number;
  ingest_chunks_per_second: number;
  /** On-disk size of the data directory right after ingestion (du: allocated blocks). */
  db_bytes: number;
  /** Sum of file sizes (du --apparent-size). */
  db_apparent_bytes: number;
  /** A few document ids, for the filtered searches. */
  sample_document_ids: string[];
}

/** Writes `count` documents under `workDir/corpus`, ingests them into `workDir/data`. */
export async function buildKb(workDir: string, count: number, log: (line: string) => void): Promise<BuiltKb> {
  const corpusDir = path.join(workDir, 'corpus');
  const dataDir = path.join(workDir, 'data');
  let t = performance.now();
  await writeCorpus(corpusDir, count);
  const corpusWriteSeconds = (performance.now() - t) / 1000;

  t = performance.now();
  const pool = await createWorkerPool({ model: BENCH_MODEL, modelDir: BENCH_MODEL_DIR });
  const modelLoadSeconds = (performance.now() - t) / 1000;
  const store = await openPgliteStore(dataDir);
  let lastLog = performance.now();
  let summary;
  let sampleIds: string[];
  try {
    summary = await ingest({
      store,
      model: BENCH_MODEL,
      preparer: pool,
      inputs: [corpusDir],
      cwd: corpusDir,
      onProgress: (event) => {
        if (event.type === 'indexing') log('    rebuilding the vector index …');
        if (event.type === 'document' && performance.now() - lastLog > 10_000) {
          lastLog = performance.now();
          log(`    ingested ${event.done}/${event.total} documents`);
        }
      },
    });
    const { rows } = await store.db.query<{ id: string }>('select id from kb_documents order by name limit 3');
    sampleIds = rows.map((r) => r.id);
  } finally {
    await pool.close();
    await store.close();
  }
  if (summary.failed.length > 0)
    log(`    ${summary.failed.length} documents failed, e.g. ${JSON.stringify(summary.failed[0])}`);
  await rm(corpusDir, { recursive: true, force: true });
  // Measured closed, before the server adds its own rows (visitors, messages, rate-limit counters).
  const size = await diskUsage(dataDir);
  return {
    dataDir,
    documents: summary.added + summary.updated,
    chunks: summary.chunks,
    failed: summary.failed.length,
    corpus_write_seconds: round(corpusWriteSeconds),
    model_load_seconds: round(modelLoadSeconds),
    ingest_seconds: round(summary.seconds),
    ingest_chunks_per_second: Math.round(summary.chunks / summary.seconds),
    db_bytes: size.blocks,
    db_apparent_bytes: size.apparent,
    sample_document_ids: sampleIds,
  };
}

/** Like `du -s` (allocated blocks) and `du -s --apparent-size`, in bytes; symlinks are not followed. */
export async function diskUsage(dir: string): Promise<{ blocks: number; apparent: number }> {
  let blocks = 0;
  let apparent = 0;
  const walk = async (p: string): Promise<void> => {
    const stat = await lstat(p);
    blocks += stat.blocks * 512;
    apparent += stat.size;
    if (stat.isDirectory()) for (const name of await readdir(p)) await walk(path.join(p, name));
  };
  await walk(dir);
  return { blocks, apparent };
}

const round = (x: number) => Math.round(x * 100) / 100;
