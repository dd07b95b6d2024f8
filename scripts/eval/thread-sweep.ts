/**
 * `npx tsx scripts/eval/thread-sweep.ts [--mode hybrid] [--margins 0,0.05,0.1,0.2] [--repeats 0.05,0.25,1]
 * [--show] [--migration <file>] <conversations.json>...`: the follow-up weights chosen leave-one-site-out. Each set's corpus is
 * ingested once; its conversations are asked through the real API (scripts/eval/ask.ts) once per value tried,
 * one weight changed at a time, the other at the value in use:
 *
 * - the thread margin (`c_thread_margin` of search_chunks): the function is created again in this process's
 *   in-memory database with the value tried, the text of the newest migration that creates it (or of
 *   `--migration`) otherwise as is;
 * - the repeat weight (server/chat/follow-up-units.ts `REPEAT_WEIGHT`), passed to the app the conversations are
 *   asked through (`repeatWeight`, down to extraction's scoring call).
 *
 * It prints, per set and value, later turns' fact in answer / right page first and the later turns refused
 * whose complete rewrite is answered alone; then, with three sets or more, for each set the value chosen on
 * the others (best summed fact in answer, ties to the value in use) against the value in use on that set.
 * `--show` prints every later turn's answer at the values in use (for reading in-sample answers only).
 * Embeddings: KB_EMBED_MODEL / KB_MODEL_DIR, default the test double, as `npm run eval`.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { followUpText } from '../../protocol/index.ts';
import { REPEAT_WEIGHT } from '../../server/chat/follow-up-units.ts';
import { readConfig } from '../../server/config/index.ts';
import { createEmbedder } from '../../server/ingest/embedder.ts';
import { createAsker, type Reply } from './ask.ts';
import { readConversationFile, type Turn } from './conversations.ts';
import { containsFact } from './metrics.ts';
import { parseMode, thresholdsFromEnv } from './options.ts';
import { buildKb } from './squad.ts';

/** The margin in use in hybrid and vector mode (keyword mode: c_lexical_margin, 0.1). */
const MARGIN_IN_USE = 0.01;
const LEXICAL_MARGIN_IN_USE = 0.1;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mode: { type: 'string', default: 'hybrid' },
    margins: { type: 'string', default: '0,0.05,0.1,0.2' },
    repeats: { type: 'string', default: '0.05,0.25,1' },
    show: { type: 'boolean', default: false },
    migration: { type: 'string' },
  },
});
const mode = parseMode(values.mode!);
/** The margin in use in this mode (search_chunks reads c_lexical_margin when it searches full text only). */
const inUseMargin = mode === 'lexical' ? LEXICAL_MARGIN_IN_USE : MARGIN_IN_USE;
// The newest migration that creates search_chunks: an older one's text would undo what came after it.
const MIGRATIONS = 'supabase/migrations';
// `--migration <file>`: an earlier one's search_chunks instead, to measure what a later migration changed.
const MIGRATION = values.migration ?? (await newestDefining(MIGRATIONS, 'create or replace function search_chunks('));
const list = (s: string) => s.split(',').map(Number);
const env = readConfig(process.env);
const embedder = await createEmbedder({
  model: process.env.KB_EMBED_MODEL ? env.embedModel : 'test-double/bert-384',
  modelDir: process.env.KB_MODEL_DIR ? env.modelDir : 'test/fixtures/models',
});

async function newestDefining(dir: string, text: string): Promise<string> {
  for (const name of (await readdir(dir))
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .reverse()) {
    const file = path.join(dir, name);
    if ((await readFile(file, 'utf8')).includes(text)) return file;
  }
  throw new Error(`${dir}: no migration holds ${text}`);
}

/** The migration's `create or replace function search_chunks(…) … $$;` with another margin. */
const migration = await readFile(MIGRATION, 'utf8');
const created = /create or replace function search_chunks\([\s\S]*?\n\$\$;/.exec(migration)?.[0];
if (!created?.includes(`c_thread_margin constant double precision := ${MARGIN_IN_USE};`))
  throw new Error(`${MIGRATION}: search_chunks with c_thread_margin ${MARGIN_IN_USE} not found`);
// Both margins (hybrid and vector, keyword mode) take the value tried: a sweep runs in one mode.
const withMargin = (m: number) =>
  created
    .replace(
      `c_thread_margin constant double precision := ${MARGIN_IN_USE};`,
      `c_thread_margin constant double precision := ${m};`,
    )
    .replace(
      /c_lexical_margin constant double precision := [\d.]+;/,
      `c_lexical_margin constant double precision := ${m};`,
    );

interface Row {
  set: string;
  param: 'margin' | 'repeat';
  value: number;
  n: number;
  fact: number;
  page: number;
  refusedInThread: number;
}
const rows: Row[] = [];
const pct = (k: number, n: number) => `${((100 * k) / Math.max(n, 1)).toFixed(1)} %`;

for (const file of positionals) {
  const set = path.basename(file, '.json');
  const convo = await readConversationFile(file);
  const kb = await buildKb(path.resolve(convo.corpus), embedder);
  const sourceOf = new Map((await kb.store.listDocuments()).map((d) => [d.id, d.source]));
  const askerAt = (repeatWeight?: number) =>
    createAsker(kb.store, {
      evidenceThreshold: env.evidenceThreshold,
      retrieval: { ...thresholdsFromEnv(process.env), mode },
      ...(repeatWeight !== undefined ? { repeatWeight } : {}),
    });
  const asker = askerAt();
  const embed = async (text: string) => (mode === 'lexical' ? undefined : (await embedder.embed([text]))[0]);
  const cited = (r: Reply) => (r.kind === 'answer' ? sourceOf.get(r.citations[0]?.document_id ?? '') : undefined);
  // The complete rewrites asked alone do not depend on the weights: asked once.
  const alone = new Map<Turn, Reply>();
  for (const c of convo.conversations)
    for (const t of c.turns.slice(1))
      if (t.standalone) alone.set(t, await (await asker.visitor()).ask(t.standalone, await embed(t.standalone)));

  async function run(show: boolean, asker = askerAt()): Promise<Omit<Row, 'set' | 'param' | 'value'>> {
    let n = 0;
    let fact = 0;
    let page = 0;
    let refusedInThread = 0;
    for (const c of convo.conversations) {
      const visitor = await asker.visitor();
      const session_id = crypto.randomUUID();
      let earlier: { question: string; about?: string } | null = null;
      for (const [i, turn] of c.turns.entries()) {
        const reply = await visitor.ask(turn.q, await embed(followUpText(turn.q, earlier)), { session_id });
        earlier = {
          question: turn.q,
          ...(reply.kind === 'answer' && reply.context?.about ? { about: reply.context.about } : {}),
        };
        if (i === 0) {
          if (show)
            console.log(
              `\n### ${turn.q}\n  ${reply.kind === 'answer' ? reply.text.replace(/\n+/g, '\n  ') : reply.kind}`,
            );
          continue;
        }
        const hasFact = reply.kind === 'answer' && containsFact(reply.text, turn.expect);
        n++;
        if (hasFact) fact++;
        if (cited(reply) === turn.source) page++;
        if (reply.kind === 'refusal' && alone.get(turn)?.kind === 'answer') refusedInThread++;
        if (show) {
          const a = alone.get(turn);
          console.log(
            `\n[${hasFact ? 'FACT' : '----'} ${cited(reply) === turn.source ? 'PAGE' : '----'}] ${turn.q}  (want ${turn.source}: ${turn.expect.join(' | ')}; got ${cited(reply) ?? reply.kind}; alone: ${a?.kind === 'answer' && containsFact(a.text, turn.expect) ? 'fact' : (a?.kind ?? '-')})`,
          );
          if (reply.kind === 'answer') console.log(`  ${reply.text.replace(/\n+/g, '\n  ')}`);
        }
      }
    }
    return { n, fact, page, refusedInThread };
  }

  for (const m of list(values.margins!)) {
    await kb.store.db.exec(withMargin(m));
    rows.push({ set, param: 'margin', value: m, ...(await run(values.show! && m === inUseMargin)) });
  }
  await kb.store.db.exec(created);
  for (const w of list(values.repeats!)) {
    if (w === REPEAT_WEIGHT) continue;
    rows.push({ set, param: 'repeat', value: w, ...(await run(false, askerAt(w))) });
  }
  // The margin in use was run with the repeat weight in use: the same row serves both sweeps.
  const inUse = rows.find((r) => r.set === set && r.param === 'margin' && r.value === inUseMargin);
  if (inUse) rows.push({ ...inUse, param: 'repeat', value: REPEAT_WEIGHT });
  await kb.close();
  for (const r of rows.filter((r) => r.set === set))
    console.log(
      `${set}\t${mode}\t${r.param} ${r.value}\tfact ${pct(r.fact, r.n)}\tpage ${pct(r.page, r.n)}\trefused in thread ${r.refusedInThread}\t(n ${r.n})`,
    );
}
await embedder.dispose();

// Leave one site out: the value with the most facts on the other sets, measured on the one left out.
const sets = [...new Set(rows.map((r) => r.set))];
if (sets.length >= 3)
  for (const [param, inUse] of [
    ['margin', inUseMargin],
    ['repeat', REPEAT_WEIGHT],
  ] as const) {
    const tried = [...new Set(rows.filter((r) => r.param === param).map((r) => r.value))];
    const at = (set: string, v: number) => rows.find((r) => r.set === set && r.param === param && r.value === v)!;
    for (const out of sets) {
      const others = sets.filter((s) => s !== out);
      const total = (v: number) => others.reduce((a, s) => a + at(s, v).fact, 0);
      const chosen = tried.reduce((best, v) => (total(v) > total(best) ? v : best), inUse);
      const r = at(out, chosen);
      const base = at(out, inUse);
      console.log(
        `LOSO ${param}: chosen on ${others.join(' + ')} = ${chosen}; on ${out}: fact ${pct(r.fact, r.n)} (in use ${inUse}: ${pct(base.fact, base.n)}), refused in thread ${r.refusedInThread} (${base.refusedInThread})`,
      );
    }
  }
