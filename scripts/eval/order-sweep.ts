/**
 * `npx tsx scripts/eval/order-sweep.ts <signals.json>`: two more candidate orders for "the canonical page
 * first", retrieval alone (the answering page first / among the first five, one per section, hybrid), on the
 * tuning sets saved by site-signals.ts, each with a leave-one-site-out choice (chosen on two sites by mean
 * page-first, then top 5; measured on the third):
 *
 * - weight: cosine weighted `w` and coverage `1 − w` (in use: the mean, w = 0.5), plus the title/section bonus
 *   of fields.ts scaled to `fw` (in use 0.05). With the test-double embedder the cosine says little, so a
 *   lower `w` would let the words decide.
 * - tiers: as documentation search ranks (DocSearch: the number of query words matched first, then the
 *   attribute they matched in), candidates grouped by coverage in bins of `d`, within a bin by the title and
 *   heading match (fields.ts weights, heading `h` against title 1, optionally rarity-weighted), then evidence.
 */
import { readFile } from 'node:fs/promises';
import { FIELD_WEIGHT, type FieldWeights, fieldBonuses } from '../../server/retrieval/fields.ts';
import type { SiteQuestion, SiteSignals } from './site-signals.ts';

type Order =
  | { kind: 'weight'; w: number; fw: number }
  | { kind: 'tiers'; d: number; fields: FieldWeights }
  | { kind: 'in use' };

/** The sort keys of every candidate of `q` under `order`, compared left to right, larger first. */
function keysOf(q: SiteQuestion, order: Order): number[][] {
  const rows = q.rows.hybrid;
  if (order.kind === 'tiers') {
    const fields = fieldBonuses(q.q, rows, order.fields);
    return rows.map((r, i) => [
      Math.floor((r.coverage ?? 0) / order.d + 1e-9),
      fields[i]!,
      ((r.cosine ?? 0) + (r.coverage ?? 0)) / 2,
    ]);
  }
  const bonus = fieldBonuses(q.q, rows);
  const w = order.kind === 'weight' ? order.w : 0.5;
  const scale = order.kind === 'weight' ? order.fw / FIELD_WEIGHT : 1;
  return rows.map((r, i) => [w * (r.cosine ?? 0) + (1 - w) * (r.coverage ?? 0) + bonus[i]! * scale]);
}

function retrieval(questions: SiteQuestion[], order: Order): { top1: number; top5: number } {
  let top1 = 0;
  let top5 = 0;
  for (const q of questions) {
    const keys = keysOf(q, order);
    const sorted = q.rows.hybrid
      .map((row, i) => ({ row, key: keys[i]! }))
      .sort((a, b) => {
        for (let j = 0; j < a.key.length; j++) if (a.key[j] !== b.key[j]) return b.key[j]! - a.key[j]!;
        return 0;
      });
    const seen = new Set<string>();
    const sources: string[] = [];
    for (const { row } of sorted) {
      const section = `${row.document_id}\u0000${row.meta.section ?? row.meta.anchor ?? ''}`;
      if (seen.has(section)) continue;
      seen.add(section);
      sources.push(row.source);
      if (sources.length >= 5) break;
    }
    const rank = sources.indexOf(q.source ?? '');
    if (rank === 0) top1++;
    if (rank >= 0) top5++;
  }
  return { top1: top1 / (questions.length || 1), top5: top5 / (questions.length || 1) };
}

const sites = JSON.parse(await readFile(process.argv[2]!, 'utf8')) as SiteSignals[];
const tuning = sites.filter((s) => !s.corpus.includes('demo'));
const questions = (s: SiteSignals) => s.questions.filter((q) => q.source !== null && !q.set.includes('heldout'));
const name = (s: SiteSignals) => /docs-corpus\/([^/]+)/.exec(s.corpus)?.[1] ?? s.corpus;
const pct = (x: number) => (x * 100).toFixed(1);

const families: Record<string, Order[]> = { weight: [], tiers: [] };
for (const w of [0, 0.1, 0.2, 0.3, 0.4, 0.5])
  for (const fw of [0, 0.05, 0.1, 0.2]) families.weight!.push({ kind: 'weight', w, fw });
for (const d of [0.05, 0.1, 0.15, 0.2, 0.25, 0.34, 0.5])
  for (const idf of [false, true])
    for (const h of [0, 0.5, 1]) families.tiers!.push({ kind: 'tiers', d, fields: { title: 1, heading: h, idf } });

const label = (o: Order) =>
  o.kind === 'weight'
    ? `w ${o.w} fw ${o.fw}`
    : o.kind === 'tiers'
      ? `d ${o.d} heading ${o.fields.heading}${o.fields.idf ? ' idf' : ''}`
      : 'in use';
const inUse = tuning.map((s) => retrieval(questions(s), { kind: 'in use' }));
console.log(`in use: ${tuning.map((s, i) => `${name(s)} ${pct(inUse[i]!.top1)} / ${pct(inUse[i]!.top5)}`).join('  ')}`);
for (const [family, orders] of Object.entries(families)) {
  const table = orders.map((o) => tuning.map((s) => retrieval(questions(s), o)));
  if (process.argv.includes('--grid'))
    for (const [k, o] of orders.entries())
      console.log(
        `${family} ${label(o)}: ${table[k]!.map((r, i) => `${name(tuning[i]!)} ${pct(r.top1)} / ${pct(r.top5)}`).join('  ')}`,
      );
  for (const [i, out] of tuning.entries()) {
    const mean = (k: number) => table[k]!.filter((_, j) => j !== i).reduce((a, r) => a + r.top1 + r.top5 / 100, 0);
    const best = orders.map((_, k) => k).sort((a, b) => mean(b) - mean(a))[0]!;
    const now = table[best]![i]!;
    console.log(
      `${family}, leave ${name(out)} out: chosen ${label(orders[best]!)} → page first ${pct(inUse[i]!.top1)} → ${pct(now.top1)}, top 5 ${pct(inUse[i]!.top5)} → ${pct(now.top5)}`,
    );
  }
}
