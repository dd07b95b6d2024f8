/**
 * Percentiles of latency samples. Nearest-rank, so every number in the report is a time that was actually
 * measured (no interpolation between two requests), and p99 of 200 samples is the second slowest.
 */

export interface Percentiles {
  n: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

export function percentile(samples: number[], p: number): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function percentiles(samples: number[]): Percentiles {
  const round = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
  return {
    n: samples.length,
    p50: round(percentile(samples, 50)),
    p95: round(percentile(samples, 95)),
    p99: round(percentile(samples, 99)),
    max: round(samples.length ? Math.max(...samples) : null),
  };
}

export const mean = (samples: number[]): number | null =>
  samples.length === 0 ? null : samples.reduce((a, b) => a + b, 0) / samples.length;
