/**
 * A benchmark knowledge base in PostgreSQL + pgvector (`npm run bench -- --database postgres`), big enough for
 * 1M chunks on a 2-core machine — where the CLI pipeline's ≈ 165 chunks/s (docs/performance.md) would take
 * 100 minutes, mostly embedding. So the rows are bulk-loaded with COPY and each index is built once, after:
 *
 * - The documents are the scale bench's corpus (corpus.ts: the same text, the same order, ≈ one chunk each).
 * - The real parts (SciFact, SQuAD, Railway prose: ≈ 14k) are prepared once by the real pipeline's workers
 *   (parse, chunk, embed with the test-double model, as `npm run ingest` does), cached in the temp folder.
 * - A recombined document's vector is not embedded: it is the normalised sum of the vectors of the real
 *   parts its sentences came from, plus a little seeded noise — so the vectors cluster by topic as the
 *   text does, instead of being uniform noise (on which HNSW recall says little about real use).
 *
 * Each scale gets its own database on the server (`kb_bench_<scale>`, dropped first), migrated by the real
 * store. The full-text index and the HNSW index are dropped before the load and built after it, each timed;
 * the corpus statistics are deferred during the load (kb_deferred_indexes) and recounted once at the end.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createWorkerPool } from '../../server/ingest/pool.ts';
import { openPostgresStore } from '../../server/store/postgres.ts';
import { corpusDocuments, realPartCount } from './corpus.ts';
import { BENCH_MODEL, BENCH_MODEL_DIR } from './kb.ts';

interface PreparedPart {
  name: string;
  meta: Record<string, unknown>;
  chunks: { content: string; meta: Record<string, unknown>; embedding: number[] }[];
}

export interface PgKb {
  url: string;
  documents: number;
  chunks: number;
  /** Seconds of each step, with the 1-minute load average when it ended (other work shares this machine). */
  steps: { step: string; seconds: number; load_1m: number }[];
  maintenance_work_mem: string;
  max_parallel_maintenance_workers: number;
  hnsw_index_bytes: number;
  fts_index_bytes: number;
  embeddings_table_bytes: number;
  chunks_table_bytes: number;
  database_bytes: number;
  sample_document_ids: string[];
}

/** `maintenance_work_mem` for the HNSW build: the graph of n 384-dimension vectors must fit (≈ 2.2 kB each; 3 kB asked, for headroom). */
export function buildMemory(chunks: number): string {
  return `${Math.max(64, Math.ceil((chunks * 3) / 1024 / 64) * 64)}MB`;
}

export async function buildPgKb(
  baseUrl: string,
  scale: number,
  options: {
    buildWorkers: number;
    log: (line: string) => void;
    /** Keep a database that an earlier run loaded completely: build only the indexes it lacks, then measure. */
    resume?: boolean;
  },
): Promise<PgKb> {
  const { log } = options;
  const steps: PgKb['steps'] = [];
  let t = performance.now();
  const step = (name: string) => {
    const seconds = Math.round((performance.now() - t) / 100) / 10;
    steps.push({ step: name, seconds, load_1m: Math.round(loadavg()[0]! * 10) / 10 });
    log(`    ${name}: ${seconds} s (load ${loadavg()[0]!.toFixed(1)})`);
    t = performance.now();
  };
  const parts = await preparedParts(Math.min(scale, await realPartCount()), log);
  step('prepare the real parts (cached after the first run)');

  const name = `kb_bench_${scale}`;
  const url = withDatabase(baseUrl, name);
  const loaded = options.resume ? await loadedCounts(baseUrl, url, scale) : null;
  if (loaded) {
    log(`    --resume: ${name} holds ${loaded.documents} documents and ${loaded.chunks} chunks with their embeddings`);
    t = performance.now();
  } else {
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    try {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.query(`create database ${name}`);
    } finally {
      await admin.end();
    }
    await (await openPostgresStore(url, { answerWriteKey: null })).close();
    step('create and migrate the database');
  }

  const client = new pg.Client({ connectionString: url, options: '-c search_path=public,extensions' });
  await client.connect();
  const hasIndex = async (index: string) =>
    (await client.query('select 1 from pg_indexes where indexname = $1', [index])).rows.length > 0;
  try {
    await client.query(`insert into kb_deferred_indexes (name) values ('kb_statistics') on conflict do nothing`);
    const counts = loaded ?? { documents: 0, chunks: 0 };
    if (!loaded) await client.query('drop index kb_embeddings_embedding_hnsw; drop index kb_chunks_fts');
    if (!loaded) {
      await copy(url, 'kb_documents (id, source, name, status, meta, checksum)', async function* () {
        for await (const doc of corpusDocuments(scale)) {
          const part = parts[doc.index];
          const meta = part?.meta ?? { source_type: 'markdown', bench: 'recombined' };
          const checksum = createHash('sha256').update(doc.text).digest('hex');
          counts.documents++;
          yield row(
            docId(doc.index),
            `bench/${String(doc.index).padStart(7, '0')}.md`,
            doc.title,
            'ready',
            JSON.stringify(meta),
            checksum,
          );
        }
      });
      step(`COPY ${counts.documents} documents`);
      await copy(url, 'kb_chunks (id, document_id, position, content, meta)', async function* () {
        for await (const doc of corpusDocuments(scale)) {
          for (const [position, chunk] of chunksOf(doc, parts).entries()) {
            counts.chunks++;
            yield row(
              chunkId(doc.index, position),
              docId(doc.index),
              String(position),
              chunk.content,
              JSON.stringify(chunk.meta),
            );
          }
        }
      });
      step(`COPY ${counts.chunks} chunks (computing their tsvectors)`);
      await copy(url, 'kb_embeddings (chunk_id, embedding, model)', async function* () {
        const random = mulberry32(0x9e37);
        for await (const doc of corpusDocuments(scale)) {
          const part = parts[doc.index];
          const vectors = part ? part.chunks.map((c) => c.embedding) : [mixed(doc.sources, parts, random)];
          for (const [position, vector] of vectors.entries())
            yield row(chunkId(doc.index, position), `[${vector.map((x) => x.toFixed(6)).join(',')}]`, BENCH_MODEL);
        }
      });
      step(`COPY ${counts.chunks} embeddings`);
    }

    if (!(await hasIndex('kb_chunks_fts'))) {
      await client.query(
        `create index kb_chunks_fts on public.kb_chunks using gin (fts) with (gin_pending_list_limit = 256)`,
      );
      step('build the full-text (GIN) index');
    }
    const memory = buildMemory(counts.chunks);
    if (!(await hasIndex('kb_embeddings_embedding_hnsw'))) {
      await client.query(`set maintenance_work_mem = '${memory}'`);
      await client.query(`set max_parallel_maintenance_workers = ${options.buildWorkers}`);
      // The statement of migration 20261122000200 (pgvector's defaults: m = 16, ef_construction = 64).
      await client.query(
        'create index kb_embeddings_embedding_hnsw on public.kb_embeddings using hnsw (embedding extensions.vector_cosine_ops)',
      );
      step(`build the HNSW index (maintenance_work_mem ${memory}, ${options.buildWorkers} parallel workers)`);
    }
    await client.query('select kb_restore_indexes()');
    step('recount the corpus statistics (kb_restore_indexes)');
    await client.query('vacuum analyze');
    step('vacuum analyze');

    const size = async (sql: string) => Number((await client.query<{ n: string }>(sql)).rows[0]!.n);
    const sample = await client.query<{ id: string }>('select id from kb_documents order by name limit 3');
    return {
      url,
      documents: counts.documents,
      chunks: counts.chunks,
      steps,
      maintenance_work_mem: memory,
      max_parallel_maintenance_workers: options.buildWorkers,
      hnsw_index_bytes: await size(`select pg_relation_size('kb_embeddings_embedding_hnsw') n`),
      fts_index_bytes: await size(`select pg_relation_size('kb_chunks_fts') n`),
      embeddings_table_bytes: await size(`select pg_table_size('kb_embeddings') n`),
      chunks_table_bytes: await size(`select pg_table_size('kb_chunks') n`),
      database_bytes: await size('select pg_database_size(current_database()) n'),
      sample_document_ids: sample.rows.map((r) => r.id),
    };
  } finally {
    await client.end();
  }
}

/** A bench database's counts when every document, chunk and embedding of `scale` is in it; else null. */
async function loadedCounts(baseUrl: string, url: string, scale: number) {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [new URL(url).pathname.slice(1)]))
    .rows.length;
  await admin.end();
  if (!exists) return null;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ documents: number; chunks: number; embeddings: number }>(
      `select (select count(*) from kb_documents)::int as documents, (select count(*) from kb_chunks)::int as chunks,
              (select count(*) from kb_embeddings)::int as embeddings`,
    );
    const r = rows[0]!;
    return r.documents === scale && r.chunks > 0 && r.embeddings === r.chunks
      ? { documents: r.documents, chunks: r.chunks }
      : null;
  } finally {
    await client.end();
  }
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

const docId = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const chunkId = (i: number, position: number) =>
  `${position.toString(16).padStart(8, '0')}-0000-4000-9000-${i.toString(16).padStart(12, '0')}`;

function chunksOf(doc: { index: number; title: string; text: string }, parts: PreparedPart[]) {
  const part = parts[doc.index];
  if (part) return part.chunks;
  // A recombined document is one chunk under its title, as the chunker makes of "# title\n\ntext".
  return [{ content: doc.text, meta: { section: doc.title, heading_path: [doc.title] } }];
}

/** The normalised sum of the source parts' first vectors, plus seeded noise (≈ 5 % of the length). */
function mixed(sources: number[], parts: PreparedPart[], random: () => number): number[] {
  const out = new Array<number>(384).fill(0);
  for (const source of sources) {
    const v = parts[source]?.chunks[0]?.embedding;
    if (v) for (let d = 0; d < out.length; d++) out[d]! += v[d]!;
  }
  const norm = Math.hypot(...out) || 1;
  for (let d = 0; d < out.length; d++) out[d] = out[d]! / norm + (random() - 0.5) * 0.005;
  const again = Math.hypot(...out) || 1;
  return out.map((x) => x / again);
}

/** One COPY text-format line: tabs, newlines and backslashes escaped. */
function row(...fields: string[]): string {
  return `${fields.map((f) => f.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')).join('\t')}\n`;
}

/** COPY … FROM STDIN through psql (node-postgres has no COPY; psql comes with the server). */
async function copy(url: string, target: string, lines: () => AsyncGenerator<string>): Promise<void> {
  const child = spawn('psql', [url, '-v', 'ON_ERROR_STOP=1', '-q', '-c', `\\copy ${target} from pstdin`], {
    stdio: ['pipe', 'inherit', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let buffer = '';
  for await (const line of lines()) {
    buffer += line;
    if (buffer.length > 1 << 20) {
      if (!child.stdin.write(buffer)) await new Promise((resolve) => child.stdin.once('drain', resolve));
      buffer = '';
    }
  }
  child.stdin.end(buffer);
  const code = await exited;
  if (code !== 0) throw new Error(`COPY ${target} failed (${code}): ${stderr}`);
}

/** The first `count` real parts prepared by the pipeline's workers; cached as JSON in the temp folder. */
async function preparedParts(count: number, log: (line: string) => void): Promise<PreparedPart[]> {
  const all = await realPartCount();
  const file = path.join(tmpdir(), 'kb-bench-prepared', `${BENCH_MODEL.replace(/\W/g, '_')}-${all}.json`);
  if (existsSync(file)) return (JSON.parse(await readFile(file, 'utf8')) as PreparedPart[]).slice(0, count);
  log(`    preparing the ${all} real parts with the ingestion workers (once; cached in ${file})`);
  const pool = await createWorkerPool({ model: BENCH_MODEL, modelDir: BENCH_MODEL_DIR });
  const out: PreparedPart[] = [];
  try {
    const queue: Promise<void>[] = [];
    for await (const doc of corpusDocuments(all)) {
      const task = pool
        .prepare({
          bytes: new TextEncoder().encode(`# ${doc.title}\n\n${doc.text}\n`),
          format: 'markdown',
          defaults: { fileTitle: String(doc.index).padStart(6, '0'), url: null },
          origin: { file: `${doc.index}.md` },
        })
        .then((prepared) => {
          out[doc.index] = prepared as PreparedPart;
        });
      queue.push(task);
      if (queue.length >= pool.parallelism * 4) await Promise.all(queue.splice(0));
      if (doc.index % 2000 === 0) log(`    prepared ${doc.index}/${all}`);
    }
    await Promise.all(queue);
  } finally {
    await pool.close();
  }
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(out));
  return count < all ? out.slice(0, count) : out;
}

/** A small seeded PRNG (public domain), so every run makes the same vectors. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
