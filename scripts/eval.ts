/**
 * `npm run eval -- --squad <file> [--out-of-kb <file>] [--split N] [--mode hybrid|vector|lexical] [--limit N]
 *                  [--beir <dir>] [--json]`
 *
 * SQuAD: every paragraph of --squad (or of its first N articles with --split N; the rest become the
 * out-of-KB set) is ingested into a fresh in-memory database; every answerable question is asked through
 * the API. BEIR (--beir): the corpus is ingested, the test queries are searched (default lexical), and
 * nDCG@10 / recall@100 are reported. Embeddings: KB_EMBED_MODEL / KB_MODEL_DIR, default the test double.
 */
import { parseArgs } from 'node:util';
import { readConfig } from '../server/config/index.ts';
import { createEmbedder } from '../server/ingest/embedder.ts';
import { evaluateBeir } from './eval/beir.ts';
import { evaluateSquad } from './eval/evaluate.ts';
import { parseMode, positiveInt, thresholdsFromEnv } from './eval/options.ts';
import { readSquad } from './eval/squad.ts';

const { values } = parseArgs({
  options: {
    squad: { type: 'string' },
    'out-of-kb': { type: 'string' },
    split: { type: 'string' },
    mode: { type: 'string' },
    limit: { type: 'string' },
    beir: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

if (!values.squad && !values.beir) {
  console.error('usage: npm run eval -- --squad <file> [--out-of-kb <file>] [--split N] [--mode hybrid|vector|lexical] [--limit N] [--beir <dir>] [--json]');
  process.exit(2);
}

const env = readConfig(process.env);
const model = process.env.KB_EMBED_MODEL ? env.embedModel : 'test-double/bert-384';
const modelDir = process.env.KB_MODEL_DIR ? env.modelDir : 'test/fixtures/models';
const limit = values.limit ? positiveInt(values.limit, '--limit') : null;
const log = (line: string) => {
  if (!values.json) console.error(line);
};

const embedder = await createEmbedder({ model, modelDir });
const result: Record<string, number | null> = {};
const table: [string, string][] = [];
const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`);

if (values.squad) {
  const mode = parseMode(values.mode ?? 'hybrid');
  let kb = await readSquad(values.squad);
  let outOfKb = values['out-of-kb'] ? await readSquad(values['out-of-kb']) : [];
  if (values.split) {
    const n = positiveInt(values.split, '--split');
    if (!values['out-of-kb']) outOfKb = kb.slice(n);
    kb = kb.slice(0, n);
  }
  log(`SQuAD: ${kb.length} articles in the KB, ${outOfKb.length} out of it; mode ${mode}; model ${model}`);
  const { report, chunks, inKb, outOfKb: outCount } = await evaluateSquad({
    kb,
    outOfKb,
    embedder,
    mode,
    limit,
    evidenceThreshold: env.evidenceThreshold,
    retrieval: thresholdsFromEnv(process.env),
    onProgress: (done, total) => {
      if (!values.json && (done % 200 === 0 || done === total)) process.stderr.write(`  asked ${done}/${total}\r`);
    },
  });
  log(`\n  ${chunks} chunks; ${inKb} in-KB answerable questions, ${outCount} out-of-KB questions`);
  Object.assign(result, report);
  table.push(
    ['hit@1 (right paragraph cited first)', pct(report.hit_at_1)],
    ['hit@3', pct(report.hit_at_3)],
    ['hit@5', pct(report.hit_at_5)],
    ['answer text contained in the answer', pct(report.containment)],
    ['in-KB refusal (answerable questions)', pct(report.in_kb_refusal)],
    ['out-of-KB refusal (every question)', pct(report.out_of_kb_refusal)],
    ['latency p50 (API, ms)', report.p50_ms.toFixed(1)],
    ['latency p95 (API, ms)', report.p95_ms.toFixed(1)],
  );
}

if (values.beir) {
  const mode = parseMode(values.mode ?? 'lexical');
  log(`BEIR: ${values.beir}; mode ${mode}`);
  const report = await evaluateBeir({ dir: values.beir, embedder, mode, limit, log });
  Object.assign(result, report);
  table.push(['nDCG@10', report.ndcg_at_10.toFixed(4)], ['recall@100', report.recall_at_100.toFixed(4)]);
}

await embedder.dispose();
if (values.json) {
  console.log(JSON.stringify(Object.fromEntries(Object.entries(result).map(([k, v]) => [k, v === null ? null : Math.round(v * 10_000) / 10_000]))));
} else {
  const width = Math.max(...table.map(([k]) => k.length));
  for (const [k, v] of table) console.log(`${k.padEnd(width)}  ${v.padStart(9)}`);
}
