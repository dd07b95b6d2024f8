/**
 * `npx tsx scripts/eval/squad-signals.ts <out.json> <squad.json> [--split N] [--limit N]`: the candidates of the
 * SQuAD questions `npm run eval -- --squad <squad.json> --split N --limit N` asks (the same articles, the same
 * questions spread over them), saved in site-signals.ts' format (an in-KB question's `source` is its paragraph's
 * section, an out-of-KB one's null), so a gate rule can be replayed on SQuAD as on the docs sites
 * (gate-sweep.ts, answer-gate-sweep.ts) without asking the questions again.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { RetrievalMode } from '../../protocol/index.ts';
import { createEmbedder } from '../../server/ingest/embedder.ts';
import { gatherEvidence } from '../../server/retrieval/index.ts';
import { spread } from './metrics.ts';
import type { SiteQuestion, SiteSignals } from './site-signals.ts';
import { buildSquadKb, questionsOf, readSquad } from './squad.ts';

const CLAIMS = { sub: '00000000-0000-0000-0000-000000000000', role: 'authenticated' };
const MODES: RetrievalMode[] = ['hybrid', 'vector', 'lexical'];

if (import.meta.url === `file://${process.argv[1]}`) {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { split: { type: 'string', default: '5' }, limit: { type: 'string', default: '300' } },
  });
  const [outFile, file] = positionals;
  if (!outFile || !file) {
    console.error('usage: npx tsx scripts/eval/squad-signals.ts <out.json> <squad.json> [--split N] [--limit N]');
    process.exit(2);
  }
  const all = await readSquad(file);
  const n = Number(values.split);
  const limit = Number(values.limit);
  const embedder = await createEmbedder({
    model: process.env.KB_EMBED_MODEL ?? 'test-double/bert-384',
    modelDir: process.env.KB_MODEL_DIR ?? 'test/fixtures/models',
  });
  const inKb = spread(
    questionsOf(all.slice(0, n)).filter((q) => q.answerable),
    limit,
  );
  const outOfKb = spread(questionsOf(all.slice(n)), limit);
  const asked = [...inKb.map((q) => ({ q, source: q.section })), ...outOfKb.map((q) => ({ q, source: null }))];
  const kb = await buildSquadKb(all.slice(0, n), embedder);
  try {
    const embeddings = await embedder.embed(asked.map((a) => a.q.question));
    const questions: SiteQuestion[] = [];
    for (const [i, { q, source }] of asked.entries()) {
      const rows = {} as SiteQuestion['rows'];
      for (const mode of MODES) {
        const found = await gatherEvidence(
          kb.store,
          { claims: CLAIMS, question: q.question, ...(mode === 'lexical' ? {} : { embedding: embeddings[i] }) },
          { mode },
        );
        rows[mode] = found.rows.map((r) => ({ ...r, source: r.meta.section ?? '?' }));
      }
      questions.push({ q: q.question, source, set: 'squad', rows });
    }
    const out: SiteSignals[] = [{ corpus: 'squad', questions }];
    await writeFile(outFile, JSON.stringify(out));
    console.error(`wrote ${outFile}: ${inKb.length} in-KB, ${outOfKb.length} out-of-KB questions`);
  } finally {
    await kb.close();
  }
}
