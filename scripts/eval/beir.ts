/**
 * A BEIR folder (corpus.jsonl, queries.jsonl or queries-test.jsonl, qrels-test.tsv or qrels/test.tsv):
 * each corpus document becomes a text file named by its id (title first, then the text), ingested by the
 * real pipeline; each test query is searched through server/retrieval's `search`, chunks are folded into
 * documents (best chunk first), and nDCG@10 and recall@100 are averaged over the queries.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RetrievalMode } from '../../protocol/index.ts';
import type { Embedder } from '../../server/ingest/embedder.ts';
import { search } from '../../server/retrieval/index.ts';
import { ndcgAt, recallAt, spread } from './metrics.ts';
import { buildKb } from './squad.ts';

export interface BeirReport {
  ndcg_at_10: number;
  recall_at_100: number;
}

const CLAIMS = { sub: '00000000-0000-0000-0000-000000000000', role: 'authenticated' };

export async function evaluateBeir(options: {
  dir: string;
  embedder: Embedder;
  mode: RetrievalMode;
  limit: number | null;
  log: (line: string) => void;
}): Promise<BeirReport> {
  const { dir, embedder, mode } = options;
  const corpus = jsonl<{ _id: string; title?: string; text: string }>(
    await readFile(path.join(dir, 'corpus.jsonl'), 'utf8'),
  );
  const queriesFile = ['queries-test.jsonl', 'queries.jsonl'].map((f) => path.join(dir, f)).find(existsSync)!;
  const queries = new Map(
    jsonl<{ _id: string; text: string }>(await readFile(queriesFile, 'utf8')).map((q) => [q._id, q.text]),
  );
  const qrelsFile = ['qrels-test.tsv', 'qrels/test.tsv'].map((f) => path.join(dir, f)).find(existsSync)!;
  const qrels = new Map<string, Map<string, number>>();
  for (const line of (await readFile(qrelsFile, 'utf8')).split('\n').slice(1)) {
    const [q, d, grade] = line.trim().split('\t');
    if (!q || !d) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, Number(grade));
  }

  const work = await mkdtemp(path.join(tmpdir(), 'kb-beir-'));
  let kb;
  try {
    for (const doc of corpus) {
      const body = [doc.title?.trim(), doc.text.trim()].filter(Boolean).join('\n\n');
      await writeFile(path.join(work, `${doc._id}.txt`), `${body}\n`);
    }
    options.log(`  ingesting ${corpus.length} documents…`);
    kb = await buildKb(work, embedder);
  } finally {
    await rm(work, { recursive: true, force: true });
  }

  try {
    const ids = spread(
      [...qrels.keys()].filter((q) => queries.has(q)),
      options.limit,
    );
    let ndcg = 0;
    let recall = 0;
    for (const [i, id] of ids.entries()) {
      const question = queries.get(id)!;
      const embedding = mode === 'lexical' ? null : (await embedder.embed([question]))[0]!;
      const { results } = await search(kb.store, {
        claims: CLAIMS,
        question,
        embedding,
        mode,
        topK: 200,
        candidates: 200,
      });
      // Documents in order of their best chunk; the document title is the corpus id (the file name).
      const ranking = [...new Set(results.map((r) => r.title))];
      ndcg += ndcgAt(10, ranking, qrels.get(id)!);
      recall += recallAt(100, ranking, qrels.get(id)!);
      if ((i + 1) % 50 === 0) options.log(`  ${i + 1}/${ids.length} queries`);
    }
    return { ndcg_at_10: ndcg / ids.length, recall_at_100: recall / ids.length };
  } finally {
    await kb.close();
  }
}

function jsonl<T>(text: string): T[] {
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}
