/**
 * `npx tsx scripts/eval/gate-sweep.ts <signals.json> [hybrid|vector|lexical] [--base <threshold>] [--floor-only] [--grid]`: the evidence gate per
 * mode, threshold × least coverage (DEFAULT_HYBRID_MIN_COVERAGE in hybrid mode, DEFAULT_VECTOR_MIN_COVERAGE in
 * vector mode), on the candidates saved by
 * site-signals.ts. Tuning sets only (held-out sets are never used to choose).
 *
 * The objective is the one the gate is held to: as many off-topic questions refused as possible with no
 * site's in-KB refusals higher than at the baseline (in-KB refusals fewer as the tie-break). The baseline is
 * the threshold and least coverage in use, or `--base <threshold>` without a floor (the hybrid defaults were
 * chosen with `--base 0.39`, the threshold in use before there was a floor). Printed:
 * leave one site out (chosen on the tuning sets of two sites, measured on the third, the demo beside it) and
 * the choice on all three; `--floor-only` keeps the threshold in use and chooses the least coverage alone;
 * `--grid` prints every pair.
 */
import { readFile } from 'node:fs/promises';
import type { RetrievalMode } from '../../protocol/index.ts';
import {
  DEFAULT_HYBRID_MIN_COVERAGE,
  DEFAULT_HYBRID_THRESHOLD,
  DEFAULT_LEXICAL_THRESHOLD,
  DEFAULT_VECTOR_MIN_COVERAGE,
} from '../../server/retrieval/gate.ts';
import { eligible, evidenceOf, passes } from '../../server/retrieval/gate.ts';
import { readConfig } from '../../server/config/index.ts';
import type { SiteQuestion, SiteSignals } from './site-signals.ts';

interface Counts {
  inRefused: number;
  inKb: number;
  offRefused: number;
  off: number;
}

/** Whether the gate answers `q` at threshold `t` with least coverage `c` (the rule of `decide`; vector rows need the coverage of migration 20261128090000). */
export function answered(q: SiteQuestion, mode: RetrievalMode, t: number, c: number): boolean {
  return q.rows[mode].some((r) => eligible(r, mode, c) && passes(evidenceOf(r, mode), t));
}

export function countsOf(questions: SiteQuestion[], mode: RetrievalMode, t: number, c: number): Counts {
  const inKb = questions.filter((q) => q.source !== null);
  const off = questions.filter((q) => q.source === null);
  return {
    inRefused: inKb.filter((q) => !answered(q, mode, t, c)).length,
    inKb: inKb.length,
    offRefused: off.filter((q) => !answered(q, mode, t, c)).length,
    off: off.length,
  };
}

/** Off-topic refused share, unless in-KB refusals rose above `base` (then out of the running). */
export function objective(now: Counts, base: Counts): number {
  if (now.inRefused > base.inRefused) return Number.NEGATIVE_INFINITY;
  return now.offRefused / (now.off || 1) - now.inRefused / (now.inKb || 1) / 100;
}

const fmt = (x: Counts) => `in-KB refused ${x.inRefused}/${x.inKb}, off-topic refused ${x.offRefused}/${x.off}`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const sites = JSON.parse(await readFile(process.argv[2]!, 'utf8')) as SiteSignals[];
  const mode = (process.argv[3]?.startsWith('--') ? 'hybrid' : (process.argv[3] ?? 'hybrid')) as RetrievalMode;
  const inUse = {
    vector: readConfig(process.env).evidenceThreshold,
    lexical: DEFAULT_LEXICAL_THRESHOLD,
    hybrid: DEFAULT_HYBRID_THRESHOLD,
  }[mode];
  const baseArg = process.argv.indexOf('--base');
  const baseT = baseArg > 0 ? Number(process.argv[baseArg + 1]) : inUse;
  const baseC =
    baseArg > 0 || mode === 'lexical'
      ? 0
      : mode === 'vector'
        ? DEFAULT_VECTOR_MIN_COVERAGE
        : DEFAULT_HYBRID_MIN_COVERAGE;
  const grid: [number, number][] = [];
  const floorOnly = process.argv.includes('--floor-only');
  for (let i = floorOnly ? 0 : -15; i <= (floorOnly ? 0 : 10); i++)
    for (const c of [0, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6])
      grid.push([Math.round((baseT + i / 100) * 100) / 100, c]);
  const name = (s: SiteSignals) => /docs-corpus\/([^/]+)/.exec(s.corpus)?.[1] ?? s.corpus;
  const tuning = (s: SiteSignals) => s.questions.filter((q) => !q.set.includes('heldout'));
  const sitesOut = sites.filter((s) => !s.corpus.includes('demo'));
  const demo = sites.find((s) => s.corpus.includes('demo'));
  const base = sitesOut.map((s) => countsOf(tuning(s), mode, baseT, baseC));
  const at = (s: SiteSignals, [t, c]: [number, number]) => countsOf(tuning(s), mode, t, c);
  const choose = (skip: number) => {
    let best: { score: number; pair: [number, number] } | null = null;
    for (const pair of grid) {
      const score = sitesOut.reduce((a, s, j) => (j === skip ? a : a + objective(at(s, pair), base[j]!)), 0);
      if (!best || score > best.score + 1e-9) best = { score, pair };
    }
    return best!.pair;
  };
  console.log(`${mode}: baseline threshold ${baseT}, least coverage ${baseC}`);
  for (const [i, s] of sitesOut.entries()) console.log(`  ${name(s)} at the baseline: ${fmt(base[i]!)}`);
  for (const [i, s] of sitesOut.entries()) {
    const pair = choose(i);
    console.log(
      `leave ${name(s)} out: chosen ${pair.join(' / ')} → ${name(s)} ${fmt(base[i]!)} → ${fmt(at(s, pair))}${demo ? `; demo ${fmt(at(demo, pair))}` : ''}`,
    );
  }
  const all = choose(-1);
  console.log(
    `chosen on all three: ${all.join(' / ')} → ${sitesOut.map((s) => `${name(s)} ${fmt(at(s, all))}`).join(' | ')}`,
  );
  if (process.argv.includes('--grid'))
    for (const pair of grid) console.log(pair.join(' / '), sitesOut.map((s) => fmt(at(s, pair))).join(' | '));
}
