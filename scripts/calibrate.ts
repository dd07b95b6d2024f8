/**
 * `npm run calibrate -- --squad <file> [--out-of-kb <file>] [--split N] [--mode hybrid|vector|lexical]
 *                       [--limit N] [--target 0.95] [--json]`
 *
 * Sweeps the evidence gate of one mode over thresholds 0.05…0.95 and prints, for each, the share of in-KB
 * questions that would be answered and of out-of-KB questions that would be refused, plus the lowest
 * threshold that refuses at least --target of the out-of-KB questions. Run it with your own model
 * (KB_EMBED_MODEL, KB_MODEL_DIR) and your own questions in SQuAD format; set the result as
 * CHAT_EVIDENCE_THRESHOLD (vector), CHAT_LEXICAL_THRESHOLD or CHAT_HYBRID_THRESHOLD.
 */
import { parseArgs } from 'node:util';
import { readConfig } from '../server/config/index.ts';
import { createEmbedder } from '../server/ingest/embedder.ts';
import { spread } from './eval/metrics.ts';
import { parseMode, positiveInt } from './eval/options.ts';
import { collectSignals } from './eval/signals.ts';
import { buildSquadKb, questionsOf, readSquad } from './eval/squad.ts';
import { suggest, sweep } from './eval/sweep.ts';

const { values } = parseArgs({
  options: {
    squad: { type: 'string' },
    'out-of-kb': { type: 'string' },
    split: { type: 'string' },
    mode: { type: 'string', default: 'hybrid' },
    limit: { type: 'string' },
    target: { type: 'string', default: '0.95' },
    json: { type: 'boolean', default: false },
  },
});
if (!values.squad || (!values['out-of-kb'] && !values.split)) {
  console.error(
    'usage: npm run calibrate -- --squad <file> (--out-of-kb <file> | --split N) [--mode hybrid|vector|lexical] [--limit N] [--target 0.95] [--json]',
  );
  process.exit(2);
}

const env = readConfig(process.env);
const model = process.env.KB_EMBED_MODEL ? env.embedModel : 'test-double/bert-384';
const modelDir = process.env.KB_MODEL_DIR ? env.modelDir : 'test/fixtures/models';
const mode = parseMode(values.mode!);
const limit = values.limit ? positiveInt(values.limit, '--limit') : null;
const target = Number(values.target);

let kbArticles = await readSquad(values.squad);
let outArticles = values['out-of-kb'] ? await readSquad(values['out-of-kb']) : [];
if (values.split) {
  const n = positiveInt(values.split, '--split');
  if (!values['out-of-kb']) outArticles = kbArticles.slice(n);
  kbArticles = kbArticles.slice(0, n);
}

const embedder = await createEmbedder({ model, modelDir });
const kb = await buildSquadKb(kbArticles, embedder);
const questions = [
  ...spread(
    questionsOf(kbArticles).filter((q) => q.answerable),
    limit,
  ).map((question) => ({ question, inKb: true })),
  ...spread(questionsOf(outArticles), limit).map((question) => ({ question, inKb: false })),
];
const signals = await collectSignals(kb.store, embedder, mode, questions);
await kb.close();
await embedder.dispose();

const rows = sweep(
  signals,
  mode,
  Array.from({ length: 19 }, (_, i) => Math.round((0.05 + i * 0.05) * 100) / 100),
);
const best = suggest(rows, target);
const variable = {
  vector: 'CHAT_EVIDENCE_THRESHOLD',
  lexical: 'CHAT_LEXICAL_THRESHOLD',
  hybrid: 'CHAT_HYBRID_THRESHOLD',
}[mode];
if (values.json) {
  console.log(JSON.stringify({ mode, model, variable, rows, suggested: best?.threshold ?? null }));
} else {
  console.log(
    `mode ${mode}, model ${model}: ${signals.filter((s) => s.inKb).length} in-KB, ${signals.filter((s) => !s.inKb).length} out-of-KB questions`,
  );
  console.log('threshold  answered in-KB  refused out-of-KB');
  for (const r of rows) {
    const mark = r === best ? '  ← lowest reaching the target' : '';
    console.log(
      `${r.threshold.toFixed(2).padStart(9)}  ${(r.answered_in_kb * 100).toFixed(1).padStart(13)} %  ${(r.refused_out_of_kb * 100).toFixed(1).padStart(15)} %${mark}`,
    );
  }
  console.log(
    best ? `\n${variable}=${best.threshold}` : `\nno threshold refuses ${target * 100} % of the out-of-KB questions`,
  );
}
