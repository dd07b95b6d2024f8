/**
 * `npx tsx scripts/eval/order-check.ts [--count 30] <qa.json>…`
 *
 * Does the search's order depend on the ingestion? Each set's corpus is ingested twice (two PGlite databases,
 * whose chunk ids are random and differ), every question (`items` and `out_of_kb`) is searched in both in
 * hybrid, vector and keyword mode as the chat endpoint searches (`count` candidates, default 30), and the two
 * ordered lists are compared by what a chunk is (its page's source and its position there), not by id.
 * Prints, per set and mode, how many questions' lists differ in their first 5 and in all `count`, and for each
 * difference whether the two chunks at the first differing place tie in score (the tie-breaker) or not (the
 * vector index's approximation).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { RetrievalMode } from '../../protocol/index.ts';
import { readConfig } from '../../server/config/index.ts';
import { createEmbedder } from '../../server/ingest/embedder.ts';
import type { SearchChunkRow } from '../../server/store/types.ts';
import { readQaFile } from './docs-qa.ts';
import { buildKb, type Kb } from './squad.ts';

const { values, positionals } = parseArgs({
  options: { count: { type: 'string', default: '30' } },
  allowPositionals: true,
});
const count = Number(values.count);
const env = readConfig(process.env);
const model = process.env.KB_EMBED_MODEL ? env.embedModel : 'test-double/bert-384';
const modelDir = process.env.KB_MODEL_DIR ? env.modelDir : 'test/fixtures/models';
const CLAIMS = { sub: '00000000-0000-0000-0000-000000000000', role: 'authenticated' };
const MODES: RetrievalMode[] = ['hybrid', 'vector', 'lexical'];

/** chunk id → `source#position`, for one database. */
async function labels(kb: Kb): Promise<Map<string, string>> {
  const { rows } = await kb.store.db.query<{ id: string; label: string }>(
    `select c.id::text as id, d.source || '#' || c.position as label
     from kb_chunks c join kb_documents d on d.id = c.document_id`,
  );
  return new Map(rows.map((r) => [r.id, r.label]));
}

const embedder = await createEmbedder({ model, modelDir });
for (const file of positionals) {
  const qa = await readQaFile(file);
  const kbs = [await buildKb(path.resolve(qa.corpus), embedder), await buildKb(path.resolve(qa.corpus), embedder)];
  const names = await Promise.all(kbs.map(labels));
  const questions = [...qa.items.map((i) => i.q), ...qa.out_of_kb];
  const embeddings = await embedder.embed(questions);
  for (const mode of MODES) {
    let top5 = 0;
    let all = 0;
    let tied = 0;
    for (const [i, q] of questions.entries()) {
      const lists: SearchChunkRow[][] = [];
      for (const kb of kbs)
        lists.push(
          await kb.store.searchChunks(CLAIMS, {
            embedding: mode === 'lexical' ? null : embeddings[i]!,
            text: q,
            count,
            mode,
            filters: {},
          }),
        );
      const [a, b] = lists.map((rows, k) => rows.map((r) => names[k]!.get(r.chunk_id)!));
      const at = a!.findIndex((x, j) => x !== b![j]);
      if (at < 0 && a!.length === b!.length) continue;
      all++;
      if (at >= 0 && at < 5) top5++;
      const [ra, rb] = [lists[0]![at], lists[1]![at]];
      if (ra && rb && ra.score === rb.score) tied++;
    }
    console.log(
      `${qa.name} (${questions.length} questions, ${mode}): order differs in the first 5 for ${top5}, in the first ${count} for ${all} (${tied} of them at a tie in score)`,
    );
  }
  for (const kb of kbs) await kb.close();
}
await embedder.dispose();
