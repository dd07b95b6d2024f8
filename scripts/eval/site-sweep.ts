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
 */
import { readFile } from 'node:fs/promises';
import type { RetrievalMode } from '../../protocol/index.ts';
import { decide, thresholdsOf } from '../../server/retrieval/index.ts';
import { FIELD_WEIGHT, fieldBonuses, type FieldWeights } from '../../server/retrieval/fields.ts';
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

if (what === 'answers') {
  // The answer each question gets (the chat endpoint's decide and extractAnswer on the saved candidates), per
  // site and set: fact in answer, right page first, page cited, fact when the page is cited, in-KB refusal,
  // off-topic refused.
  const env = readConfig(process.env);
  const expectOf = new Map<string, string[]>();
  for (const f of await readdir('scripts/eval/qa'))
    if (f.endsWith('.json') && !f.includes('conversation'))
      for (const item of (await readQaFile(`scripts/eval/qa/${f}`)).items) expectOf.set(item.q, item.expect);
  const mode = (process.argv[4] ?? 'hybrid') as RetrievalMode;
  console.log(`set | n | fact | first | cited | fact when cited | in-KB refused | off-topic refused (${mode})`);
  for (const site of sites)
    for (const set of [...new Set(site.questions.map((q) => q.set))].filter((s) => FINAL || !heldOut(s))) {
      const qs = site.questions.filter((q) => q.set === set);
      let n = 0,
        fact = 0,
        first = 0,
        cited = 0,
        factCited = 0,
        refused = 0,
        off = 0,
        offRefused = 0;
      for (const q of qs) {
        const rows = q.rows[mode];
        const got = decide(
          rows,
          mode,
          { evidenceThreshold: env.evidenceThreshold, ...retrievalFromEnv(process.env) },
          q.q,
        );
        if (q.source === null) {
          off++;
          if (got.kind === 'refuse') offRefused++;
          continue;
        }
        n++;
        if (got.kind === 'refuse') {
          refused++;
          continue;
        }
        const answer = extractAnswer(q.q, got.chunks, {}, got.siblings);
        const sourceOf = new Map(rows.map((r) => [r.document_id, r.source]));
        const pages = answer.citations.map((c) => sourceOf.get(c.document_id));
        const hasFact = containsFact(answer.text, expectOf.get(q.q) ?? []);
        if (hasFact) fact++;
        if (pages[0] === q.source) first++;
        if (pages.includes(q.source)) {
          cited++;
          if (hasFact) factCited++;
        }
        if (process.env.KB_SWEEP_SHOW === set)
          console.error(
            `${hasFact ? 'FACT' : '----'} ${pages[0] === q.source ? 'FIRST' : '-----'} ${q.q}\n${answer.text.replace(/^/gm, '    | ')}`,
          );
      }
      console.log(
        `${set.padEnd(22)} ${String(n).padStart(3)} ${pct(fact / n).padStart(5)} ${pct(first / n).padStart(5)} ${pct(cited / n).padStart(5)} ${pct(factCited / (cited || 1)).padStart(5)} ${pct(refused / n).padStart(5)}  ${offRefused}/${off}`,
      );
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
