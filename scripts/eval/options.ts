/** Command-line and environment options shared by `npm run eval` and `npm run calibrate`. */
import type { RetrievalMode } from '../../protocol/index.ts';

export function parseMode(value: string): RetrievalMode {
  if (value === 'hybrid' || value === 'vector' || value === 'lexical') return value;
  throw new Error(`--mode must be hybrid, vector or lexical, not "${value}"`);
}

export function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer, not "${value}"`);
  return n;
}

export { retrievalFromEnv as thresholdsFromEnv } from '../../server/retrieval/config.ts';
