/**
 * `npx tsx scripts/eval/gate-signal-sweep.ts <signals.json> [--rules a,b] [--show <rule>]` (`--show` prints
 * the tuning questions a rule newly refuses): signals other than a threshold that were measured as a condition
 * of the evidence gate (docs/retrieval-and-answers.md, "The gate, round 10") and not kept, replayed on the
 * candidates saved by site-signals.ts, tuning sets only (a set whose name says "heldout" is skipped). Each rule
 * may only refuse a question the gate in use answers; printed per mode and site, refused in-KB / off-topic,
 * before → with the rule:
 *
 * - together<k>-<scope>: the question's k rarest content words among those at most `share` of the candidates
 *   hold (a site's name aside) occur together in one sentence / chunk / section of the candidates;
 * - nonsite-<x>: the best candidate holds at least the share x of those specific words (absent ones included);
 *   absent&nonsite-<x>: the same, only for a question with a word no candidate holds;
 * - heading-*: a candidate's page title or section path holds the rarest specific word / any of them, or the
 *   best candidate's does;
 * - type-best / type-passing: a quantity, date, procedure or command question (answer-type.ts) has such a
 *   value in the best candidate / in a candidate that passes the gate;
 * - vec-page-*: the page (not the chunk, as HYBRID_VECTOR_CANDIDATE) of a chunk that passes the hybrid gate
 *   is among the vector search's candidates (its first k).
 */
import { readFile } from 'node:fs/promises';
import type { RetrievalMode } from '../../protocol/index.ts';
import { decide, orderScores, sectionKey } from '../../server/retrieval/index.ts';
import { readConfig } from '../../server/config/index.ts';
import { retrievalFromEnv } from '../../server/retrieval/config.ts';
import { contentWords } from '../../server/chat/text.ts';
import { expectedType, holdsValue, lastSentence, valueAsked } from '../../server/chat/answer-type.ts';
import type { SearchChunkRow } from '../../server/store/types.ts';
import type { SiteSignals } from './site-signals.ts';
import {
  DEFAULT_HYBRID_MIN_COVERAGE,
  DEFAULT_HYBRID_THRESHOLD,
  DEFAULT_LEXICAL_THRESHOLD,
} from '../../server/retrieval/gate.ts';

const sites = JSON.parse(await readFile(process.argv[2]!, 'utf8')) as SiteSignals[];
const flag = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const SHOW = flag('--show') ?? '';
const sentences = (c: string) => c.split(/\n+|(?<=[.!?])\s+/).filter((s) => s.trim());
/** The gate in use per mode (the 'passing' variants read it). */
const gateOf = (mode: RetrievalMode) =>
  mode === 'hybrid'
    ? { t: DEFAULT_HYBRID_THRESHOLD, c: DEFAULT_HYBRID_MIN_COVERAGE }
    : mode === 'lexical'
      ? { t: DEFAULT_LEXICAL_THRESHOLD, c: 0 }
      : { t: readConfig(process.env).evidenceThreshold, c: 0 };
type Rule = (q: string, rows: SearchChunkRow[], mode: RetrievalMode) => boolean; // true = keep answer

function specific(q: string, rows: SearchChunkRow[], share: number) {
  const bags = rows.map((r) => new Set(contentWords(`${r.document_title} ${r.meta.section ?? ''} ${r.content}`)));
  const words = [...new Set(contentWords(lastSentence(q)))];
  const df = new Map(words.map((w) => [w, bags.filter((b) => b.has(w)).length]));
  const spec = words.filter((w) => df.get(w)! <= share * rows.length);
  return { bags, words, df, spec };
}
const together =
  (k: number, scope: 'sentence' | 'chunk' | 'section', share = 0.5): Rule =>
  (q, rows) => {
    const { df, spec } = specific(q, rows, share);
    const present = spec.filter((w) => df.get(w)! > 0).sort((a, b) => df.get(a)! - df.get(b)!);
    const need = present.slice(0, k);
    if (need.length < Math.min(k, 2)) return true;
    const units: Set<string>[] = [];
    if (scope === 'section') {
      const by = new Map<string, string>();
      for (const r of rows)
        by.set(
          sectionKey(r),
          `${by.get(sectionKey(r)) ?? ''} ${r.document_title} ${r.meta.section ?? ''} ${r.content}`,
        );
      for (const t of by.values()) units.push(new Set(contentWords(t)));
    } else
      for (const r of rows) {
        const head = `${r.document_title} ${r.meta.section ?? ''}`;
        if (scope === 'chunk') units.push(new Set(contentWords(`${head} ${r.content}`)));
        else for (const s of sentences(r.content)) units.push(new Set(contentWords(`${s}`)));
      }
    return units.some((u) => need.every((w) => u.has(w)));
  };
/** Share of the specific words (absent included) in the best-evidence chunk. */
const nonSite =
  (x: number, share = 0.5): Rule =>
  (q, rows, mode) => {
    const { spec } = specific(q, rows, share);
    if (spec.length === 0) return true;
    const best = orderScores(rows, mode, q).sort((a, b) => b.evidence - a.evidence)[0]!.row;
    const bag = new Set(contentWords(`${best.document_title} ${best.meta.section ?? ''} ${best.content}`));
    return spec.filter((w) => bag.has(w)).length / spec.length >= x;
  };
const absentAnd =
  (x: number): Rule =>
  (q, rows, mode) => {
    const { df, spec } = specific(q, rows, 0.5);
    if (!spec.some((w) => df.get(w) === 0)) return true;
    return nonSite(x)(q, rows, mode);
  };
const heading =
  (which: 'rarest' | 'any' | 'best-any'): Rule =>
  (q, rows, mode) => {
    const { df, spec } = specific(q, rows, 0.5);
    const present = spec.filter((w) => df.get(w)! > 0).sort((a, b) => df.get(a)! - df.get(b)!);
    if (present.length === 0) return true;
    const need = which === 'rarest' ? present.filter((w) => df.get(w) === df.get(present[0]!)) : present;
    const heads = (r: SearchChunkRow) => new Set(contentWords(`${r.document_title} ${r.meta.section ?? ''}`));
    const pool =
      which === 'best-any' ? [orderScores(rows, mode, q).sort((a, b) => b.evidence - a.evidence)[0]!.row] : rows;
    return pool.some((r) => {
      const h = heads(r);
      return need.some((w) => h.has(w));
    });
  };
const typed =
  (scope: 'best' | 'passing'): Rule =>
  (q, rows, mode) => {
    const type = expectedType(q);
    const value = valueAsked(q, type);
    const kinds = new Set(['quantity', 'date', 'procedure', 'command']);
    if (!type || !kinds.has(type)) return true;
    const scored = orderScores(rows, mode, q).sort((a, b) => b.evidence - a.evidence);
    const pool =
      scope === 'best'
        ? [scored[0]!.row]
        : scored
            .filter((x) => x.evidence >= gateOf(mode).t - 1e-6 && (x.row.coverage ?? 0) >= gateOf(mode).c)
            .map((x) => x.row);
    return pool.some((r) => {
      if (type === 'procedure') return /```|^\s*\d+[.)]\s/m.test(r.content);
      if (type === 'command') return /```|`[^`]+`/.test(r.content);
      return value
        ? holdsValue({ kind: 'paragraph', markdown: r.content } as never, value === 'default' ? (type as never) : value)
        : true;
    });
  };
const vecPage =
  (k: number): Rule =>
  (q, rows, mode) => {
    if (mode !== 'hybrid') return true;
    const pages = new Set(rows.filter((r) => r.vector_rank !== null && r.vector_rank <= k).map((r) => r.document_id));
    const { t, c } = gateOf(mode);
    const pass = orderScores(rows, mode, q).filter((x) => x.evidence >= t - 1e-6 && (x.row.coverage ?? 0) >= c);
    return pass.some((x) => pages.has(x.row.document_id));
  };
const rules: Record<string, Rule> = {
  'vec-page-all': vecPage(1000),
  'vec-page-20': vecPage(20),
  'type-best': typed('best'),
  'type-passing': typed('passing'),
  'heading-rarest': heading('rarest'),
  'heading-any': heading('any'),
  'heading-best-any': heading('best-any'),
  'together2-sentence': together(2, 'sentence'),
  'together2-chunk': together(2, 'chunk'),
  'together2-section': together(2, 'section'),
  'together3-chunk': together(3, 'chunk'),
  'together3-section': together(3, 'section'),
  'together2-chunk-s.25': together(2, 'chunk', 0.25),
  'nonsite-0.34': nonSite(0.34),
  'nonsite-0.5': nonSite(0.5),
  'nonsite-0.67': nonSite(0.67),
  'absent&nonsite-0.5': absentAnd(0.5),
  'absent&nonsite-0.67': absentAnd(0.67),
};
const pick = flag('--rules')?.split(',');
for (const mode of ['hybrid', 'lexical', 'vector'] as RetrievalMode[]) {
  const opts = {
    evidenceThreshold: readConfig(process.env).evidenceThreshold,
    ...retrievalFromEnv(process.env),
    hybridVectorCandidate: false,
    mode,
  };
  console.log(`\n## ${mode}`);
  for (const [name, rule] of Object.entries(rules)) {
    if (pick && !pick.includes(name)) continue;
    const cells: string[] = [];
    for (const site of sites) {
      let inR = 0,
        offR = 0,
        inR2 = 0,
        offR2 = 0,
        nin = 0,
        noff = 0;
      for (const q of site.questions) {
        if (q.set.includes('heldout')) continue;
        const rows = q.rows[mode] as unknown as SearchChunkRow[];
        const ans = decide(rows, mode, opts as never, q.q).kind === 'answer';
        const ans2 = ans && rule(q.q, rows, mode);
        const off = q.source === null;
        if (off) {
          noff++;
          offR += ans ? 0 : 1;
          offR2 += ans2 ? 0 : 1;
        } else {
          nin++;
          inR += ans ? 0 : 1;
          inR2 += ans2 ? 0 : 1;
        }
        if (ans !== ans2 && SHOW.includes(name)) console.log(`   ${off ? 'OFF' : 'IN '} refused by ${name}: ${q.q}`);
      }
      cells.push(
        `${/docs-corpus\/([^/]+)/.exec(site.corpus)?.[1] ?? site.corpus} in ${inR}→${inR2}/${nin} off ${offR}→${offR2}/${noff}`,
      );
    }
    console.log(`${name.padEnd(22)} ${cells.join(' | ')}`);
  }
}
