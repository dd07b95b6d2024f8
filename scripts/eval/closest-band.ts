/**
 * `npx tsx scripts/eval/closest-band.ts [--mode hybrid|lexical|vector] <qa.json>…`
 *
 * How close to the evidence gate the refused questions of docs-QA sets come: for each question the gate
 * refuses, its best evidence as a share of the mode's threshold, split into in-KB questions (`items`, which
 * the KB answers on some page) and off-topic ones (`out_of_kb`). The "Closest pages" band under a refusal
 * (server/chat/closest.ts) must sit above every off-topic share, so an off-topic question never gets pages;
 * this prints both distributions and how many of each a band would list pages for.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readConfig } from '../../server/config/index.ts';
import { createEmbedder } from '../../server/ingest/embedder.ts';
import { decide, gatherEvidence, thresholdsOf } from '../../server/retrieval/index.ts';
import { readQaFile } from './docs-qa.ts';
import { parseMode, thresholdsFromEnv } from './options.ts';
import { buildKb } from './squad.ts';

const { values, positionals } = parseArgs({
  options: { mode: { type: 'string', default: 'hybrid' } },
  allowPositionals: true,
});
const mode = parseMode(values.mode!);
const env = readConfig(process.env);
const model = process.env.KB_EMBED_MODEL ? env.embedModel : 'test-double/bert-384';
const modelDir = process.env.KB_MODEL_DIR ? env.modelDir : 'test/fixtures/models';
const threshold = thresholdsOf({ evidenceThreshold: env.evidenceThreshold, ...thresholdsFromEnv(process.env) })[mode];
const CLAIMS = { sub: '00000000-0000-0000-0000-000000000000', role: 'authenticated' };

const embedder = await createEmbedder({ model, modelDir });
const inKb: number[] = [];
const offTopic: number[] = [];
const nearOffTopic: string[] = [];
const nearInKb: string[] = [];
let answered = 0;
let offAnswered = 0;
for (const file of positionals) {
  const qa = await readQaFile(file);
  const kb = await buildKb(path.resolve(qa.corpus), embedder);
  const questions = [...qa.items.map((i) => ({ q: i.q, off: false })), ...qa.out_of_kb.map((q) => ({ q, off: true }))];
  const embeddings = mode === 'lexical' ? null : await embedder.embed(questions.map((q) => q.q));
  for (const [i, { q, off }] of questions.entries()) {
    const { rows } = await gatherEvidence(
      kb.store,
      { claims: CLAIMS, question: q, embedding: embeddings?.[i] },
      { mode },
    );
    // The gate as the chat endpoint applies it (decide: in hybrid mode only chunks with enough coverage count).
    const found = decide(
      rows,
      mode,
      { evidenceThreshold: env.evidenceThreshold, ...thresholdsFromEnv(process.env) },
      q,
    );
    const best = found.evidence;
    if (found.kind === 'answer') {
      if (!off) answered++;
      else offAnswered++; // answered anyway: no refusal, so no closest pages either way
      continue;
    }
    (off ? offTopic : inKb).push(best / threshold);
    if (best / threshold >= 0.9) (off ? nearOffTopic : nearInKb).push(`${(best / threshold).toFixed(3)} ${q}`);
  }
  await kb.close();
}
await embedder.dispose();

const fmt = (xs: number[]) =>
  xs
    .sort((a, b) => b - a)
    .map((x) => x.toFixed(3))
    .join(' ');
console.log(`mode ${mode}, threshold ${threshold}, model ${model}`);
console.log(
  `in-KB answered: ${answered}; in-KB refused: ${inKb.length}; off-topic refused: ${offTopic.length} (answered: ${offAnswered})`,
);
console.log(`in-KB refused, best evidence / threshold: ${fmt(inKb)}`);
console.log(`off-topic refused, best evidence / threshold: ${fmt(offTopic)}`);
console.log(`in-KB refusals within 10 % of the threshold:\n  ${nearInKb.join('\n  ') || '(none)'}`);
console.log(`off-topic refusals within 10 % of the threshold:\n  ${nearOffTopic.join('\n  ') || '(none)'}`);
console.log('band (share of threshold below it)  in-KB refusals with pages  off-topic with pages');
for (const band of [0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3]) {
  const count = (xs: number[]) => xs.filter((x) => x >= 1 - band).length;
  console.log(
    `${band.toFixed(2).padStart(5)}  ${String(count(inKb)).padStart(30)}  ${String(count(offTopic)).padStart(20)}`,
  );
}
