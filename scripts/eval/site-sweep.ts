/**
 * `npx tsx scripts/eval/site-sweep.ts <signals.json> [fields|gate|answers|agree]`: reads the candidates saved by
 * site-signals.ts and prints, per site and per set (tuning and held-out apart):
 *
 * - fields: retrieval alone (the answering page first / among the first five, in the order `decide` gives
 *   the candidates, hybrid) for each title / heading weight tried, and the weight a leave-one-site-out choice
 *   picks: chosen on the tuning sets of two sites, measured on the third. Held-out sets are printed for the
 *   weights in use only, never used to choose.
 * - gate: per mode, the highest evidence of an off-topic question and the in-KB questions refused at the
 *   threshold in use and at the threshold that refuses every off-topic question of the tuning sets.
 * - answers: the answer every question gets (the chat endpoint's decide and extractAnswer), per set: fact in
 *   answer, right page first, page cited, fact when cited, refusals (`KB_SWEEP_SHOW=<set>` prints them).
 * - agree: the gate's agreement signal (vector and full-text lists sharing a page among their first k).
 * - titled [hybrid|lexical|vector]: the bonus of a page the question names (TITLE_NAMED_WEIGHT, fields.ts) at
 *   several weights: per tuning set, retrieval alone (answering page first / in the first five, in decide's
 *   order) and answers (fact, right page first, page cited, fact when cited), then leave one site out (the
 *   weight with the best fact in answer, then page first, on two sites, measured on the third).
 *   `KB_SWEEP_TITLE_WEIGHT=<w>` sets the weight for `answers` too (with KB_SWEEP_SHOW, to read the answers).
 */
import { readFile } from 'node:fs/promises';
import type { RetrievalMode } from '../../protocol/index.ts';
import { decide, orderScores, sectionKey, thresholdsOf } from '../../server/retrieval/index.ts';
import { FIELD_WEIGHT, fieldBonuses, type FieldWeights, TITLE_NAMED_WEIGHT } from '../../server/retrieval/fields.ts';
import type { SearchChunkRow } from '../../server/store/types.ts';
import type { SiteQuestion, SiteSignals } from './site-signals.ts';
import { evidenceOf } from '../../server/retrieval/gate.ts';
import { readConfig } from '../../server/config/index.ts';
import { retrievalFromEnv } from '../../server/retrieval/config.ts';
import { extractAnswer } from '../../server/chat/extract.ts';
import { readdir } from 'node:fs/promises';
import { readQaFile } from './docs-qa.ts';
import { containsFact } from './metrics.ts';

const pct = (x: number) => `${(x * 100).toFixed(1)}`;
const heldOut = (set: string) => set.includes('heldout');
/** Held-out figures are printed only for the final measurement (KB_SWEEP_FINAL=1), never while choosing. */
const FINAL = process.env.KB_SWEEP_FINAL === '1';

function asRows(q: SiteQuestion, mode: RetrievalMode): SearchChunkRow[] {
  return q.rows[mode].map(
    (r, i) =>
      ({ ...r, chunk_id: `${i}`, content: '', document_url: null, document_meta: {} }) as unknown as SearchChunkRow,
  );
}

/**
 * Retrieval alone for one set of questions: share with the answering page first / in the first five, in the
 * order `decide` gives the candidates (evidence plus the field bonus, one per section), here with the field
 * weights tried (`fieldBonuses` called directly; the chat endpoint passes none and gets FIELD_WEIGHT).
 */
export function retrievalAlone(
  questions: SiteQuestion[],
  fields: FieldWeights | undefined,
): { top1: number; top5: number } {
  let top1 = 0;
  let top5 = 0;
  for (const q of questions) {
    const rows = asRows(q, 'hybrid');
    const bonus = fieldBonuses(q.q, rows, fields);
    const order = rows
      .map((row, i) => ({ row, source: q.rows.hybrid[i]!.source, order: evidenceOf(row, 'hybrid') + bonus[i]! }))
      .sort((a, b) => b.order - a.order);
    const seen = new Set<string>();
    const sources: string[] = [];
    for (const { row, source } of order) {
      const section = `${row.document_id}\u0000${row.meta.section ?? row.meta.anchor ?? ''}`;
      if (seen.has(section)) continue;
      seen.add(section);
      sources.push(source);
      if (sources.length >= 5) break;
    }
    const rank = sources.indexOf(q.source ?? '');
    if (rank === 0) top1++;
    if (rank >= 0) top5++;
  }
  return { top1: top1 / (questions.length || 1), top5: top5 / (questions.length || 1) };
}

const sites = JSON.parse(await readFile(process.argv[2]!, 'utf8')) as SiteSignals[];
const what = process.argv[3] ?? 'fields';
const inKb = (site: SiteSignals, held: boolean) =>
  site.questions.filter((q) => q.source !== null && heldOut(q.set) === held);
const name = (site: SiteSignals) => /docs-corpus\/([^/]+)/.exec(site.corpus)?.[1] ?? site.corpus;

const key = (w: FieldWeights) => `${w.title}/${w.heading}${w.idf ? ' idf' : ''}`;
if (what === 'fields') {
  const grid: FieldWeights[] = [];
  for (const title of [0, 0.05, 0.1, 0.15, 0.2, 0.3])
    for (const heading of [0, 0.05, 0.1, 0.15, 0.2])
      for (const idf of [false, true]) if (!idf || title + heading > 0) grid.push({ title, heading, idf });
  const tuning = sites.filter((s) => !s.corpus.includes('demo'));
  const score = (site: SiteSignals, w: FieldWeights) => retrievalAlone(inKb(site, false), w);
  console.log('site | weights (title/heading) | tuning top1 / top5');
  const table = new Map<string, { top1: number; top5: number }[]>();
  for (const w of grid)
    table.set(
      key(w),
      tuning.map((s) => score(s, w)),
    );
  table.set(
    'in use',
    tuning.map((s) => retrievalAlone(inKb(s, false), undefined)),
  );
  for (const [k, rows] of table)
    console.log(
      `${k.padEnd(14)} ${rows.map((r, i) => `${name(tuning[i]!)} ${pct(r.top1)}/${pct(r.top5)}`).join('  ')}`,
    );
  // Leave one site out: the weights with the best mean top-1 (then top-5) on the two others.
  for (const [i, out] of tuning.entries()) {
    const mean = (key: string) => {
      const rows = table.get(key)!.filter((_, j) => j !== i);
      return rows.reduce((a, r) => a + r.top1 + r.top5 / 100, 0) / rows.length;
    };
    const best = [...table.keys()].sort((a, b) => mean(b) - mean(a))[0]!;
    const was = table.get('in use')![i]!;
    const now = table.get(best)![i]!;
    console.log(
      `LOSO: chosen on the others ${best}; on ${name(out)} tuning top1 ${pct(was.top1)} → ${pct(now.top1)}, top5 ${pct(was.top5)} → ${pct(now.top5)}`,
    );
  }
  for (const site of FINAL ? sites : []) {
    const held = inKb(site, true);
    if (held.length === 0) continue;
    const r = retrievalAlone(held, undefined);
    console.log(
      `held-out ${name(site)} (weights in use ${FIELD_WEIGHT} on title and section path): top1 ${pct(r.top1)}, top5 ${pct(r.top5)}`,
    );
  }
}

if (what === 'gate') {
  const env = readConfig(process.env);
  const thresholds = thresholdsOf({ evidenceThreshold: env.evidenceThreshold });
  for (const mode of ['hybrid', 'vector', 'lexical'] as RetrievalMode[]) {
    const best = (q: SiteQuestion) => Math.max(0, ...q.rows[mode].map((r) => evidenceOf(r, mode)));
    const off = (site: SiteSignals, held: boolean) =>
      site.questions.filter((q) => q.source === null && heldOut(q.set) === held);
    const maxOff = Math.max(...sites.flatMap((s) => off(s, false).map(best)));
    // The lowest threshold above every tuning off-topic question (evidence is compared with >=).
    const needed = Math.ceil((maxOff + 1e-6) * 100) / 100;
    console.log(
      `\n${mode}: threshold in use ${thresholds[mode]}; highest off-topic evidence (tuning, all sites) ${maxOff.toFixed(3)} → ${needed}`,
    );
    for (const site of sites)
      for (const held of FINAL ? [false, true] : [false]) {
        const qs = inKb(site, held);
        const os = off(site, held);
        if (qs.length === 0 && os.length === 0) continue;
        const at = (t: number) =>
          `in-KB refused ${qs.filter((q) => best(q) < t).length}/${qs.length}, off-topic refused ${os.filter((q) => best(q) < t).length}/${os.length}`;
        console.log(
          `  ${name(site).padEnd(22)} ${held ? 'held-out' : 'tuning  '} at ${thresholds[mode]}: ${at(thresholds[mode])} | at ${needed}: ${at(needed)}`,
        );
      }
  }
}

/** Figures of one set's answers (the chat endpoint's decide and extractAnswer on the saved candidates). */
interface AnswerFigures {
  n: number;
  fact: number;
  first: number;
  cited: number;
  factCited: number;
  refused: number;
  off: number;
  offRefused: number;
  /** Retrieval alone: the answering page first / among the first five sections in decide's order. */
  top1: number;
  top5: number;
  /** Each in-KB question's answer text, to count the answers a weight changes. */
  texts: string[];
}

let expectOf: Map<string, string[]> | undefined;
async function answersOf(
  qs: SiteQuestion[],
  mode: RetrievalMode,
  titleNamedWeight: number,
  show: boolean,
): Promise<AnswerFigures> {
  if (!expectOf) {
    expectOf = new Map();
    for (const f of await readdir('scripts/eval/qa'))
      if (f.endsWith('.json') && !f.includes('conversation'))
        for (const item of (await readQaFile(`scripts/eval/qa/${f}`)).items) expectOf.set(item.q, item.expect);
  }
  const env = readConfig(process.env);
  const options = { evidenceThreshold: env.evidenceThreshold, ...retrievalFromEnv(process.env), titleNamedWeight };
  const f: AnswerFigures = {
    n: 0,
    fact: 0,
    first: 0,
    cited: 0,
    factCited: 0,
    refused: 0,
    off: 0,
    offRefused: 0,
    top1: 0,
    top5: 0,
    texts: [],
  };
  for (const q of qs) {
    const rows = q.rows[mode];
    const got = decide(rows, mode, options, q.q);
    if (q.source === null) {
      f.off++;
      if (got.kind === 'refuse') f.offRefused++;
      continue;
    }
    f.n++;
    // Retrieval alone, before the gate: the first five sections in decide's order.
    const sections = new Set<string>();
    const sources: string[] = [];
    for (const { row } of orderScores(rows, mode, q.q, options).sort((a, b) => b.order - a.order)) {
      if (sections.has(sectionKey(row))) continue;
      sections.add(sectionKey(row));
      sources.push((row as SearchChunkRow & { source: string }).source);
      if (sources.length >= 5) break;
    }
    if (sources[0] === q.source) f.top1++;
    if (sources.includes(q.source)) f.top5++;
    if (got.kind === 'refuse') {
      f.refused++;
      f.texts.push('(refused)');
      continue;
    }
    const answer = extractAnswer(q.q, got.chunks, {}, got.siblings);
    f.texts.push(answer.text);
    const sourceOf = new Map(rows.map((r) => [r.document_id, r.source]));
    const pages = answer.citations.map((c) => sourceOf.get(c.document_id));
    const hasFact = containsFact(answer.text, expectOf.get(q.q) ?? []);
    if (hasFact) f.fact++;
    if (pages[0] === q.source) f.first++;
    if (pages.includes(q.source)) {
      f.cited++;
      if (hasFact) f.factCited++;
    }
    if (show)
      console.error(
        `${hasFact ? 'FACT' : '----'} ${pages[0] === q.source ? 'FIRST' : '-----'} ${q.q}\n${answer.text.replace(/^/gm, '    | ')}`,
      );
  }
  return f;
}

const weightInUse = process.env.KB_SWEEP_TITLE_WEIGHT ? Number(process.env.KB_SWEEP_TITLE_WEIGHT) : TITLE_NAMED_WEIGHT;

if (what === 'answers') {
  // The answer each question gets, per site and set: fact in answer, right page first, page cited, fact when
  // the page is cited, in-KB refusal, off-topic refused; retrieval alone (page first / top 5) last.
  const mode = (process.argv[4] ?? 'hybrid') as RetrievalMode;
  console.log(
    `set | n | fact | first | cited | fact when cited | in-KB refused | off-topic refused | retrieval alone first / top 5 (${mode}, title weight ${weightInUse})`,
  );
  for (const site of sites)
    for (const set of [...new Set(site.questions.map((q) => q.set))].filter((s) => FINAL || !heldOut(s))) {
      const qs = site.questions.filter((q) => q.set === set);
      const f = await answersOf(qs, mode, weightInUse, process.env.KB_SWEEP_SHOW === set);
      const n = f.n || 1;
      console.log(
        `${set.padEnd(22)} ${String(f.n).padStart(3)} ${pct(f.fact / n).padStart(5)} ${pct(f.first / n).padStart(5)} ${pct(f.cited / n).padStart(5)} ${pct(f.factCited / (f.cited || 1)).padStart(5)} ${pct(f.refused / n).padStart(5)}  ${f.offRefused}/${f.off}  ${pct(f.top1 / n)} / ${pct(f.top5 / n)}`,
      );
    }
}

if (what === 'titled') {
  // The bonus of a page the question names, swept; tuning sets only (held-out with KB_SWEEP_FINAL=1, at the
  // weight in use and at 0, never to choose).
  const mode = (process.argv[4] ?? 'hybrid') as RetrievalMode;
  const weights = (process.env.KB_SWEEP_WEIGHTS ?? '0,0.02,0.03,0.04,0.06,0.08,0.1,0.15').split(',').map(Number);
  // Sites with tuning sets in the file (a file of held-out sets alone has none: no choice is made on it).
  const tuning = sites.filter(
    (s) => !s.corpus.includes('demo') && s.questions.some((q) => q.source !== null && !heldOut(q.set)),
  );
  const line = (f: AnswerFigures) => {
    const n = f.n || 1;
    return `fact ${pct(f.fact / n)} first ${pct(f.first / n)} cited ${pct(f.cited / n)} when-cited ${pct(f.factCited / (f.cited || 1))} | alone ${pct(f.top1 / n)}/${pct(f.top5 / n)}`;
  };
  // Per site (its tuning sets together) and weight.
  const bySite = new Map<string, Map<number, AnswerFigures>>();
  console.log(`(${mode}) set | weight | answers | retrieval alone first/top5 | answers changed vs 0`);
  for (const site of sites) {
    const sets = [...new Set(site.questions.map((q) => q.set))].filter((s) => !heldOut(s));
    const perWeight = new Map<number, AnswerFigures>();
    for (const set of sets) {
      const qs = site.questions.filter((q) => q.set === set);
      const base = await answersOf(qs, mode, 0, false);
      for (const w of weights) {
        const f = w === 0 ? base : await answersOf(qs, mode, w, false);
        const changed = f.texts.filter((t, i) => t !== base.texts[i]).length;
        console.log(`${set.padEnd(22)} ${String(w).padEnd(5)} ${line(f)} | changed ${changed}`);
        const sum = perWeight.get(w);
        if (!sum) perWeight.set(w, { ...f, texts: [] });
        else
          for (const k of [
            'n',
            'fact',
            'first',
            'cited',
            'factCited',
            'refused',
            'off',
            'offRefused',
            'top1',
            'top5',
          ] as const)
            sum[k] += f[k];
      }
    }
    bySite.set(name(site), perWeight);
  }
  // Leave one site out: the weight with the best mean fact in answer on the two others (then right page
  // first, then retrieval alone, then the smaller weight), measured on the third.
  const score = (f: AnswerFigures) => [f.fact / f.n, f.first / f.n, f.top1 / f.n];
  for (const out of tuning) {
    const others = tuning.filter((s) => s !== out).map((s) => bySite.get(name(s))!);
    const mean = (w: number) =>
      [0, 1, 2].map((k) => others.reduce((a, m) => a + score(m.get(w)!)[k]!, 0) / others.length);
    const best = [...weights].sort((a, b) => {
      const [x, y] = [mean(a), mean(b)];
      for (const k of [0, 1, 2]) if (Math.abs(x[k]! - y[k]!) > 1e-9) return y[k]! - x[k]!;
      return a - b;
    })[0]!;
    const m = bySite.get(name(out))!;
    console.log(
      `LOSO: chosen on the others ${best} (${mean(best).map(pct).join(' / ')}); on ${name(out)}: 0 → ${line(m.get(0)!)}  ⇒  ${best} → ${line(m.get(best)!)}`,
    );
  }
  if (FINAL)
    for (const site of sites) {
      const qs = site.questions.filter((q) => heldOut(q.set));
      if (qs.length === 0) continue;
      for (const w of [0, weightInUse]) {
        const f = await answersOf(qs, mode, w, false);
        console.log(
          `held-out ${name(site)} weight ${w}: ${line(f)} | in-KB refused ${f.refused}/${f.n}, off-topic refused ${f.offRefused}/${f.off}`,
        );
      }
    }
}

if (what === 'agree') {
  // A gate signal tried beside the threshold: refuse an answered question when no page is among the first k of
  // both the vector and the full-text list (the two retrievers disagree). Tuning sets only, hybrid threshold
  // in use; per site, in-KB and off-topic questions the gate answers now that the signal would refuse.
  const env = readConfig(process.env);
  const threshold = thresholdsOf({ evidenceThreshold: env.evidenceThreshold }).hybrid;
  for (const k of [3, 5, 10, 20]) {
    const out: string[] = [];
    for (const site of sites) {
      let inKb = 0,
        inRefused = 0,
        off = 0,
        offRefused = 0;
      for (const q of site.questions.filter((x) => !heldOut(x.set))) {
        if (Math.max(0, ...q.rows.hybrid.map((r) => evidenceOf(r, 'hybrid'))) < threshold) continue;
        const vector = new Set(q.rows.vector.slice(0, k).map((r) => r.document_id));
        const agree = q.rows.lexical.slice(0, k).some((r) => vector.has(r.document_id));
        if (q.source === null) {
          off++;
          if (!agree) offRefused++;
        } else {
          inKb++;
          if (!agree) inRefused++;
        }
      }
      out.push(`${name(site)}: in-KB ${inRefused}/${inKb}, off-topic ${offRefused}/${off}`);
    }
    console.log(`k=${k}  ${out.join(' | ')}`);
  }
}
