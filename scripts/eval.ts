/**
 * `npm run eval -- --site railway|vite|mkdocs-material|demo|all [--mode …] [--json]`: every question set of
 * the site in scripts/eval/qa/ (scripts/eval/sites.ts), one row per set, tuning and held-out apart.
 * `npm run eval -- --record-floor`: measures the demo and held-out sets and rewrites scripts/eval/floor.json,
 * the quality floor `npm test` holds (scripts/eval/floor.ts).
 *
 * `npm run eval -- --squad <file> [--out-of-kb <file>] [--split N] [--mode hybrid|vector|lexical] [--limit N]
 *                  [--beir <dir>] [--qa <file.json> [--corpus <dir>] [--show]] [--json]`
 *
 * SQuAD: every paragraph of --squad (or of its first N articles with --split N; the rest become the
 * out-of-KB set) is ingested into a fresh in-memory database; every answerable question is asked through
 * the API. BEIR (--beir): the corpus is ingested, the test queries are searched (default lexical), and
 * nDCG@10 / recall@100 are reported. Docs QA (--qa): the file's corpus is ingested and its visitor questions
 * asked through the API (scripts/eval/docs-qa.ts); --show prints every answer, as a visitor would read it,
 * with what was cited. A --qa file with `conversations` is a conversation set (scripts/eval/conversations.ts):
 * each conversation is asked in one session, follow-ups against their standalone rewrites; --no-context asks
 * every turn as a new question. Embeddings: KB_EMBED_MODEL / KB_MODEL_DIR, default the test double.
 */
import { parseArgs } from 'node:util';
import { readConfig } from '../server/config/index.ts';
import { createEmbedder } from '../server/ingest/embedder.ts';
import { evaluateBeir } from './eval/beir.ts';
import { readFile } from 'node:fs/promises';
import { evaluateConversations, isConversationFile, readConversationFile } from './eval/conversations.ts';
import { byKind, evaluateQa, readQaFile } from './eval/docs-qa.ts';
import { evaluateSquad } from './eval/evaluate.ts';
import { FLOOR_MODEL, FLOOR_MODEL_DIR, FLOOR_PATH, recordFloor } from './eval/floor.ts';
import { evaluateSiteFile, SITES, type SiteRow, siteFiles, siteTable } from './eval/sites.ts';
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
    qa: { type: 'string' },
    corpus: { type: 'string' },
    show: { type: 'boolean', default: false },
    'no-context': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    site: { type: 'string' },
    'record-floor': { type: 'boolean', default: false },
  },
});

if (!values.squad && !values.beir && !values.qa && !values.site && !values['record-floor']) {
  console.error(
    'usage: npm run eval -- --site railway|vite|mkdocs-material|demo|all [--mode …] | --record-floor | --squad <file> [--out-of-kb <file>] [--split N] [--mode hybrid|vector|lexical] [--limit N] [--beir <dir>] [--qa <file.json> [--corpus <dir>] [--show]] [--json]',
  );
  process.exit(2);
}

const env = readConfig(process.env);
const model = process.env.KB_EMBED_MODEL ? env.embedModel : 'test-double/bert-384';
const modelDir = process.env.KB_MODEL_DIR ? env.modelDir : 'test/fixtures/models';
const limit = values.limit ? positiveInt(values.limit, '--limit') : null;
const log = (line: string) => {
  if (!values.json) console.error(line);
};

if (values['record-floor']) {
  // The floor is the test double's figure whatever the environment names: that is what CI measures.
  const floorEmbedder = await createEmbedder({ model: FLOOR_MODEL, modelDir: FLOOR_MODEL_DIR });
  console.error(`Recording ${FLOOR_PATH} (hybrid, ${FLOOR_MODEL}, default thresholds)`);
  await recordFloor(floorEmbedder, (line) => console.error(line));
  await floorEmbedder.dispose();
  process.exit(0);
}

const embedder = await createEmbedder({ model, modelDir });

if (values.site) {
  const mode = parseMode(values.mode ?? 'hybrid');
  const files = await siteFiles(values.site);
  if (files.length === 0) {
    console.error(`no question sets for --site ${values.site} in scripts/eval/qa (named ${SITES[values.site]}*.json)`);
    process.exit(2);
  }
  log(`Sites: ${values.site}, ${files.length} question sets; mode ${mode}; model ${model}`);
  const rows: SiteRow[] = [];
  for (const f of files) {
    log(`  ${f.file} (${f.set}) …`);
    rows.push(
      await evaluateSiteFile(f, {
        embedder,
        mode,
        evidenceThreshold: env.evidenceThreshold,
        retrieval: thresholdsFromEnv(process.env),
      }),
    );
  }
  await embedder.dispose();
  console.log(values.json ? JSON.stringify(rows) : siteTable(rows));
  process.exit(0);
}
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
  const {
    report,
    chunks,
    inKb,
    outOfKb: outCount,
  } = await evaluateSquad({
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
    ['citation precision (citations from the gold paragraph)', pct(report.citation_precision)],
    ['answer precision (quoted units from the gold paragraph)', pct(report.answer_precision)],
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

const conversations = values.qa ? isConversationFile(JSON.parse(await readFile(values.qa, 'utf8'))) : false;
if (values.qa && conversations) {
  const mode = parseMode(values.mode ?? 'hybrid');
  const file = await readConversationFile(values.qa);
  log(
    `Conversations: ${file.name}, ${file.conversations.length} conversations, ${file.topic_switch.length} topic switches, ${file.off_topic.length} off-topic follow-ups; mode ${mode}; model ${model}${values['no-context'] ? '; no context' : ''}`,
  );
  const { report, followUps, switches, offTopic, chunks } = await evaluateConversations({
    file,
    embedder,
    mode,
    evidenceThreshold: env.evidenceThreshold,
    retrieval: thresholdsFromEnv(process.env),
    noContext: values['no-context'],
  });
  log(`  ${chunks} chunks`);
  if (values.show) {
    const show = (
      label: string,
      r: {
        turn: { q: string; source: string; expect: string[]; standalone?: string };
        reply: { kind: string; text?: string; context?: { about?: string } };
        cited: string[];
        fact: boolean;
      },
    ) => {
      const reply = r.reply as { kind: string; text?: string; context?: { about?: string } };
      console.error(
        `  ${label} ${r.fact ? 'FACT' : '----'} ${r.cited[0] === r.turn.source ? 'FIRST' : '-----'} ${r.turn.q}${reply.context?.about ? `  [about: ${reply.context.about}]` : ''}  (want ${r.turn.source}, got ${r.cited[0] ?? reply.kind})`,
      );
      // The quoted answer's start, to read it as a visitor would.
      if (reply.text) console.error(`      > ${reply.text.replace(/\s+/g, ' ').slice(0, 160)}`);
    };
    for (const f of followUps) {
      console.error('\n###');
      f.conversation.forEach((r, i) => show(`T${i + 1}`, r));
      f.standalone.forEach((r) => show('SA', { ...r, turn: { ...r.turn, q: r.turn.standalone ?? r.turn.q } }));
    }
    for (const s of switches) {
      console.error('\n### switch');
      s.conversation.forEach((r, i) => show(`T${i + 1}`, r));
      show('ALONE', s.alone);
    }
    for (const o of offTopic) {
      console.error('\n### off-topic follow-up');
      o.conversation.forEach((r, i) => show(`T${i + 1}`, r));
      for (const [label, r] of [
        ['FU', o.followUp],
        ['ALONE', o.alone],
      ] as const) {
        const text = r.reply.kind === 'answer' ? r.reply.text.replace(/\s+/g, ' ').slice(0, 160) : 'refused';
        console.error(`  ${label} ${r.reply.kind === 'refusal' ? 'REFUSED ' : 'ANSWERED'} ${r.q}\n      > ${text}`);
      }
    }
  }
  const flat = {
    ...report,
    follow_ups: undefined,
    standalone: undefined,
    topic_switch: undefined,
    topic_switch_alone: undefined,
  };
  Object.assign(result, Object.fromEntries(Object.entries(flat).filter(([, v]) => v !== undefined)));
  for (const key of ['follow_ups', 'standalone', 'topic_switch', 'topic_switch_alone'] as const) {
    result[`${key}_n`] = report[key].n;
    result[`${key}_fact`] = report[key].fact_in_answer;
    result[`${key}_first`] = report[key].right_page_first;
  }
  const pair = (s: { fact_in_answer: number; right_page_first: number; n: number }) =>
    `${pct(s.fact_in_answer)} / ${pct(s.right_page_first)} (n ${s.n})`;
  table.push(
    ['later turns in context: fact / right page first', pair(report.follow_ups)],
    ['standalone rewrites (ceiling): fact / right page first', pair(report.standalone)],
    ['topic switch in a conversation: fact / right page first', pair(report.topic_switch)],
    ['same question asked alone: fact / right page first', pair(report.topic_switch_alone)],
    [
      'later turns refused / of them answered when complete (with the fact)',
      `${report.refused} / ${report.refused_in_thread} (${report.refused_in_thread_fact})`,
    ],
    [
      'off-topic follow-ups refused in the thread / asked complete (answered repeating the earlier answer)',
      `${report.off_topic_refused} / ${report.off_topic_refused_alone} of ${report.off_topic} (${report.off_topic_repeated})`,
    ],
    ['detector fires on later turns', pct(report.detector_follow_ups)],
    ['detector fires on complete questions (first turns, rewrites)', pct(report.detector_complete)],
    ['latency p50 (API, ms)', report.p50_ms.toFixed(1)],
  );
}

if (values.qa && !conversations) {
  const mode = parseMode(values.mode ?? 'hybrid');
  const qa = await readQaFile(values.qa);
  log(
    `Docs QA: ${qa.name}, ${qa.items.length} questions, ${qa.out_of_kb.length} off-topic; mode ${mode}; model ${model}`,
  );
  const { report, results, offTopic, chunks } = await evaluateQa({
    qa,
    embedder,
    mode,
    evidenceThreshold: env.evidenceThreshold,
    retrieval: thresholdsFromEnv(process.env),
    ...(values.corpus ? { corpus: values.corpus } : {}),
  });
  log(`  ${chunks} chunks`);
  if (values.show) {
    for (const r of results) {
      const mark = `${r.fact ? 'FACT' : '----'} ${r.cited[0] === r.item.source ? 'FIRST' : r.cited.includes(r.item.source) ? 'cited' : '-----'} cand${r.candidateRank < 0 ? '-' : r.candidateRank + 1}`;
      console.error(
        `\n### ${mark} [${r.item.kind ?? ''}] ${r.item.q}\n    want ${JSON.stringify(r.item.expect)} from ${r.item.source}`,
      );
      if (r.reply.kind === 'refusal') console.error(`    REFUSED (${r.reply.reason})`);
      else {
        console.error(r.reply.text.replace(/^/gm, '    | '));
        r.cited.forEach((source, i) => console.error(`    [${i + 1}] ${source}`));
      }
    }
    for (const o of offTopic)
      console.error(`\n### off-topic ${o.reply.kind === 'refusal' ? 'refused' : 'ANSWERED'}: ${o.q}`);
  }
  log(
    '\n  by kind: n, fact in answer, right page first | retrieval alone: top 1, top 5 | extraction alone: fact when cited (of n)',
  );
  for (const k of byKind(results)) {
    log(
      `  ${k.kind.padEnd(11)} ${String(k.n).padStart(3)}  ${pct(k.fact_in_answer).padStart(7)} ${pct(k.right_page_first).padStart(7)} | ${pct(k.retrieval_top1).padStart(7)} ${pct(k.retrieval_top5).padStart(7)} | ${pct(k.fact_when_cited).padStart(7)} (${k.cited})`,
    );
  }
  Object.assign(result, report);
  table.push(
    ['fact in answer', pct(report.fact_in_answer)],
    ['right page cited first', pct(report.right_page_first)],
    ['right page cited at all', pct(report.right_page_cited)],
    ['citation precision (citations from the answering page)', pct(report.citation_precision)],
    ['citations per answer', report.citations_per_answer.toFixed(2)],
    ['prose sentences per answer', report.sentences_per_answer.toFixed(2)],
    ['blocks (code, list, table) per answer', report.blocks_per_answer.toFixed(2)],
    ['in-KB refusal', pct(report.in_kb_refusal)],
    ['off-topic refused', pct(report.off_topic_refusal)],
    ['retrieval alone: answering page first candidate', pct(report.retrieval_top1)],
    ['retrieval alone: answering page in first 5 candidates', pct(report.retrieval_top5)],
    ['extraction alone: fact when the answering page is cited', pct(report.fact_when_cited)],
    ['latency p50 (API, ms)', report.p50_ms.toFixed(1)],
    ['latency p95 (API, ms)', report.p95_ms.toFixed(1)],
  );
}

await embedder.dispose();
if (values.json) {
  console.log(
    JSON.stringify(
      Object.fromEntries(
        Object.entries(result).map(([k, v]) => [k, v === null ? null : Math.round(v * 10_000) / 10_000]),
      ),
    ),
  );
} else {
  const width = Math.max(...table.map(([k]) => k.length));
  for (const [k, v] of table) console.log(`${k.padEnd(width)}  ${v.padStart(9)}`);
}
