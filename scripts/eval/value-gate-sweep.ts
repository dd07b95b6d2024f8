/**
 * `npx tsx scripts/eval/value-gate-sweep.ts <signals.json>... [--kinds time,count,version] [--passing] [--share x]
 * [--all-modes] [--show]`: the value-asked condition of the gate (server/retrieval/asked-value.ts) replayed on
 * candidates saved by site-signals.ts or squad-signals.ts, in every mode at the gate's defaults: refused, in-KB /
 * off-topic, without and with it, per site (tuning sets only: a set whose name says "heldout" is skipped unless
 * KB_SWEEP_FINAL=1, which reads only those), and with `--show` every question whose verdict it changes.
 * Variants measured against the rule kept: `--kinds` keeps some kinds of value only; `--passing` requires the
 * value of a candidate that passes the gate rather than of any candidate; `--share` sets ANCHOR_SHARE;
 * `--all-modes` applies it in vector mode too.
 */
import { readFile } from 'node:fs/promises';
import type { RetrievalMode } from '../../protocol/index.ts';
import { readConfig } from '../../server/config/index.ts';
import { ANCHOR_SHARE, anchorsOf, askedValue, statesValue, VALUE_MODES } from '../../server/retrieval/asked-value.ts';
import {
  DEFAULT_HYBRID_MIN_COVERAGE,
  DEFAULT_HYBRID_THRESHOLD,
  DEFAULT_LEXICAL_THRESHOLD,
  DEFAULT_VECTOR_MIN_COVERAGE,
  eligible,
  evidenceOf,
  passes,
} from '../../server/retrieval/gate.ts';
import type { SiteQuestion, SiteSignals } from './site-signals.ts';

const MODES: RetrievalMode[] = ['hybrid', 'vector', 'lexical'];

function gateOf(mode: RetrievalMode): { t: number; c: number } {
  if (mode === 'vector') return { t: readConfig(process.env).evidenceThreshold, c: DEFAULT_VECTOR_MIN_COVERAGE };
  if (mode === 'lexical') return { t: DEFAULT_LEXICAL_THRESHOLD, c: 0 };
  return { t: DEFAULT_HYBRID_THRESHOLD, c: DEFAULT_HYBRID_MIN_COVERAGE };
}

export interface RuleOptions {
  kinds: string[];
  /** Only a candidate that passes the gate may state the value (the variant measured against the pool). */
  passing: boolean;
  /** Share of the candidates a specific word may be in (asked-value.ts' ANCHOR_SHARE). */
  share: number;
  /** Apply the rule in vector mode too (asked-value.ts' VALUE_MODES leave it out). */
  allModes: boolean;
}

/** Whether the gate answers `q` in `mode` at the defaults, with the value-asked condition when `rule` is given. */
export function answered(q: SiteQuestion, mode: RetrievalMode, rule: RuleOptions | null): boolean {
  const { t, c } = gateOf(mode);
  const rows = q.rows[mode];
  const kind = rule ? askedValue(q.q) : null;
  const on = kind !== null && rule!.kinds.includes(kind) && (rule!.allModes || VALUE_MODES.includes(mode));
  const anchors = on
    ? anchorsOf(
        q.q,
        rows.map((r) => r.content),
        rule!.share,
      )
    : [];
  const states = (r: (typeof rows)[number]) => statesValue(r.content, kind!, anchors.length > 0 ? anchors : null);
  if (on && !rule!.passing && !rows.some(states)) return false;
  return rows.some(
    (r) => eligible(r, mode, c) && passes(evidenceOf(r, mode), t) && (!on || !rule!.passing || states(r)),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const files = args.filter((a, i) => !a.startsWith('--') && !['--kinds', '--share'].includes(args[i - 1]!));
  const kindsArg = args.indexOf('--kinds');
  const shareArg = args.indexOf('--share');
  const rule: RuleOptions = {
    kinds: kindsArg >= 0 ? args[kindsArg + 1]!.split(',') : ['time', 'count', 'version'],
    passing: args.includes('--passing'),
    share: shareArg >= 0 ? Number(args[shareArg + 1]) : ANCHOR_SHARE,
    allModes: args.includes('--all-modes'),
  };
  const final = process.env.KB_SWEEP_FINAL === '1';
  for (const file of files) {
    const sites = JSON.parse(await readFile(file, 'utf8')) as SiteSignals[];
    for (const site of sites) {
      const name = /docs-corpus\/([^/]+)/.exec(site.corpus)?.[1] ?? site.corpus;
      const qs = site.questions.filter((q) => q.set.includes('heldout') === final);
      if (qs.length === 0) continue;
      for (const mode of MODES) {
        const count = (r: RuleOptions | null) => {
          const inKb = qs.filter((q) => q.source !== null);
          const off = qs.filter((q) => q.source === null);
          return `in-KB refused ${inKb.filter((q) => !answered(q, mode, r)).length}/${inKb.length}, off-topic refused ${off.filter((q) => !answered(q, mode, r)).length}/${off.length}`;
        };
        console.log(`${name} ${mode}: before ${count(null)} | with the rule ${count(rule)}`);
        if (args.includes('--show'))
          for (const q of qs)
            if (answered(q, mode, null) !== answered(q, mode, rule))
              console.log(
                `    ${q.source === null ? 'OFF' : 'IN '} ${answered(q, mode, rule) ? 'now answered' : 'now refused'}: ${q.q}`,
              );
      }
    }
  }
}
