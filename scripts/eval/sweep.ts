/** The gate's trade-off for `npm run calibrate`: per threshold, in-KB questions answered vs out-of-KB refused. */
import type { RetrievalMode } from '../../protocol/index.ts';
import { evidenceOf } from '../../server/retrieval/gate.ts';
import type { QuestionSignals } from './signals.ts';

export interface SweepRow {
  threshold: number;
  /** Share of in-KB questions whose best chunk passes. */
  answered_in_kb: number;
  /** Share of out-of-KB questions whose best chunk does not. */
  refused_out_of_kb: number;
}

export function bestEvidence(signals: QuestionSignals, mode: RetrievalMode): number {
  return Math.max(0, ...signals.rows.map((row) => evidenceOf(row, mode)));
}

export function sweep(signals: QuestionSignals[], mode: RetrievalMode, thresholds: number[]): SweepRow[] {
  const inKb = signals.filter((s) => s.inKb).map((s) => bestEvidence(s, mode));
  const outOfKb = signals.filter((s) => !s.inKb).map((s) => bestEvidence(s, mode));
  const share = (values: number[], pass: (v: number) => boolean) =>
    values.length === 0 ? 0 : values.filter(pass).length / values.length;
  return thresholds.map((threshold) => ({
    threshold,
    answered_in_kb: share(inKb, (v) => v >= threshold),
    refused_out_of_kb: share(outOfKb, (v) => v < threshold),
  }));
}

/** The lowest swept threshold that refuses at least `target` of the out-of-KB questions, if any. */
export function suggest(rows: SweepRow[], target: number): SweepRow | null {
  return rows.find((r) => r.refused_out_of_kb >= target) ?? null;
}
