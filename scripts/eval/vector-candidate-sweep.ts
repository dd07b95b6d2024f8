/**
 * `npx tsx scripts/eval/vector-candidate-sweep.ts <signals.json>... [--show]`: the hybrid gate's
 * vector-candidate rule (server/retrieval/gate.ts, HYBRID_VECTOR_CANDIDATE: only a chunk among the vector
 * search's candidates carries the gate) replayed with `decide` on candidates saved by site-signals.ts or
 * squad-signals.ts. Tuning sets only: a set whose name says "heldout" is skipped unless KB_SWEEP_FINAL=1,
 * which reads only those (totals, never `--show`).
 *
 * Printed per site, refused in-KB / off-topic in hybrid mode: without the rule and with it at the thresholds
 * in use; then leave one site out, the objective of gate-sweep.ts (the most off-topic questions refused with
 * no site's in-KB refusals above those of the gate in use, fewer in-KB refusals as the tie-break, then the
 * choice nearest the gate in use) over the rule off or on × hybrid threshold (in use − 0.05 … + 0.03) × least
 * coverage (0.25 … 0.45): chosen on two sites, measured on the third, the demo beside it. Keyword and vector mode are printed too: the rule does not
 * apply there (keyword rows have no vector rank, every vector row has one), so they show it changes nothing.
 * `--show` prints each tuning question whose verdict the rule changes at the thresholds in use.
 */
import { readFile } from 'node:fs/promises';
import type { RetrievalMode } from '../../protocol/index.ts';
import { readConfig } from '../../server/config/index.ts';
import { retrievalFromEnv } from '../../server/retrieval/config.ts';
import { DEFAULT_HYBRID_MIN_COVERAGE, DEFAULT_HYBRID_THRESHOLD } from '../../server/retrieval/gate.ts';
import { decide, type RetrievalOptions } from '../../server/retrieval/index.ts';
import type { SearchChunkRow } from '../../server/store/types.ts';
import type { SiteQuestion, SiteSignals } from './site-signals.ts';

interface Counts {
  inRefused: number;
  inKb: number;
  offRefused: number;
  off: number;
}

interface Choice {
  rule: boolean;
  t: number;
  c: number;
}

const FINAL = process.env.KB_SWEEP_FINAL === '1';
const base = { evidenceThreshold: readConfig(process.env).evidenceThreshold, ...retrievalFromEnv(process.env) };

export function refused(q: SiteQuestion, mode: RetrievalMode, options: Partial<RetrievalOptions>): boolean {
  const rows = q.rows[mode] as unknown as SearchChunkRow[];
  return decide(rows, mode, { ...base, ...options, mode }, q.q).kind === 'refuse';
}

function countsOf(questions: SiteQuestion[], mode: RetrievalMode, options: Partial<RetrievalOptions>): Counts {
  const inKb = questions.filter((q) => q.source !== null);
  const off = questions.filter((q) => q.source === null);
  return {
    inRefused: inKb.filter((q) => refused(q, mode, options)).length,
    inKb: inKb.length,
    offRefused: off.filter((q) => refused(q, mode, options)).length,
    off: off.length,
  };
}

const optionsOf = (x: Choice): Partial<RetrievalOptions> => ({
  hybridVectorCandidate: x.rule,
  hybridThreshold: x.t,
  hybridMinCoverage: x.c,
});

/** gate-sweep.ts' objective: off-topic refused share, unless in-KB refusals rose above `before`. */
function objective(now: Counts, before: Counts): number {
  if (now.inRefused > before.inRefused) return Number.NEGATIVE_INFINITY;
  return now.offRefused / (now.off || 1) - now.inRefused / (now.inKb || 1) / 100;
}

const fmt = (x: Counts) => `${x.inRefused} of ${x.inKb} / ${x.offRefused} of ${x.off}`;
const name = (s: SiteSignals) => /docs-corpus\/([^/]+)/.exec(s.corpus)?.[1] ?? s.corpus;
const label = (x: Choice) => `${x.rule ? 'rule on' : 'rule off'}, ${x.t} / ${x.c}`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const sites: SiteSignals[] = [];
  for (const f of files) sites.push(...(JSON.parse(await readFile(f, 'utf8')) as SiteSignals[]));
  const setOf = (s: SiteSignals) => s.questions.filter((q) => q.set.includes('heldout') === FINAL);
  const inUse: Choice = { rule: false, t: DEFAULT_HYBRID_THRESHOLD, c: DEFAULT_HYBRID_MIN_COVERAGE };
  const ruleOn: Choice = { ...inUse, rule: true };
  console.log('refused, in-KB / off-topic: without the rule → with it (thresholds in use)');
  for (const mode of ['hybrid', 'lexical', 'vector'] as RetrievalMode[])
    for (const s of sites) {
      const qs = setOf(s);
      if (qs.length === 0) continue;
      // Held-out sets one by one (totals only), tuning sets per site.
      if (FINAL)
        for (const set of new Set(qs.map((q) => q.set))) {
          const of = qs.filter((q) => q.set === set);
          console.log(
            `  ${mode.padEnd(7)} ${set.padEnd(22)} ${fmt(countsOf(of, mode, optionsOf(inUse)))} → ${fmt(countsOf(of, mode, optionsOf(ruleOn)))}`,
          );
        }
      else
        console.log(
          `  ${mode.padEnd(7)} ${name(s).padEnd(22)} ${fmt(countsOf(qs, mode, optionsOf(inUse)))} → ${fmt(countsOf(qs, mode, optionsOf(ruleOn)))}`,
        );
      if (process.argv.includes('--show') && !FINAL)
        for (const q of qs)
          if (refused(q, mode, optionsOf(inUse)) !== refused(q, mode, optionsOf(ruleOn)))
            console.log(
              `      ${q.source === null ? 'off-topic' : 'in-KB'} now ${refused(q, mode, optionsOf(ruleOn)) ? 'refused' : 'answered'}: ${q.q}`,
            );
    }
  if (FINAL) process.exit(0);
  const grid: Choice[] = [];
  for (const rule of [false, true])
    for (let i = -5; i <= 3; i++)
      for (const c of [0.25, 0.3, 0.35, 0.4, 0.45])
        grid.push({ rule, t: Math.round((DEFAULT_HYBRID_THRESHOLD + i / 100) * 100) / 100, c });
  const docsSites = sites.filter((s) => s.corpus.includes('docs-corpus'));
  const demo = sites.find((s) => s.corpus.includes('demo'));
  const before = docsSites.map((s) => countsOf(setOf(s), 'hybrid', optionsOf(inUse)));
  const at = (s: SiteSignals, x: Choice) => countsOf(setOf(s), 'hybrid', optionsOf(x));
  const choose = (skip: number) => {
    let best: { score: number; x: Choice } | null = null;
    for (const x of grid) {
      // Ties go to the choice nearest the gate in use (the rule off, then the thresholds in use).
      const change = (x.rule ? 1e-6 : 0) + (Math.abs(x.t - inUse.t) + Math.abs(x.c - inUse.c)) * 1e-5;
      const score = docsSites.reduce((a, s, j) => (j === skip ? a : a + objective(at(s, x), before[j]!)), 0) - change;
      if (!best || score > best.score + 1e-9) best = { score, x };
    }
    return best!.x;
  };
  console.log('\nleave one site out (hybrid):');
  for (const [i, s] of docsSites.entries()) {
    const x = choose(i);
    console.log(
      `  leave ${name(s)} out: chosen ${label(x)} → ${name(s)} ${fmt(before[i]!)} → ${fmt(at(s, x))}${demo ? `; demo ${fmt(at(demo, x))}` : ''}`,
    );
  }
  const all = choose(-1);
  console.log(
    `  chosen on all three: ${label(all)} → ${docsSites.map((s) => `${name(s)} ${fmt(at(s, all))}`).join(' | ')}${demo ? ` | demo ${fmt(at(demo, all))}` : ''}`,
  );
}
