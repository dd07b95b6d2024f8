/**
 * The gate thresholds of lexical and hybrid mode, the hybrid and vector gates' least coverage, the hybrid gate's
 * vector-candidate rule (CHAT_HYBRID_VECTOR_CANDIDATE) and the citation floor from the environment
 * (CHAT_EVIDENCE_THRESHOLD, the vector gate, is read by server/config). Unset variables keep the
 * calibrated defaults of gate.ts.
 *
 * @example
 * createApp({ ...deps, retrieval: { ...retrievalFromEnv(process.env) } });
 */
import type { RetrievalOptions } from './index.ts';

export function retrievalFromEnv(env: Record<string, string | undefined>): Partial<RetrievalOptions> {
  const out: Partial<RetrievalOptions> = {};
  const lexical = threshold(env, 'CHAT_LEXICAL_THRESHOLD');
  const hybrid = threshold(env, 'CHAT_HYBRID_THRESHOLD');
  const floor = threshold(env, 'CHAT_CITATION_FLOOR');
  const minCoverage = threshold(env, 'CHAT_HYBRID_MIN_COVERAGE');
  const vectorMinCoverage = threshold(env, 'CHAT_VECTOR_MIN_COVERAGE');
  if (lexical !== undefined) out.lexicalThreshold = lexical;
  if (hybrid !== undefined) out.hybridThreshold = hybrid;
  if (floor !== undefined) out.citationFloor = floor;
  if (minCoverage !== undefined) out.hybridMinCoverage = minCoverage;
  if (vectorMinCoverage !== undefined) out.vectorMinCoverage = vectorMinCoverage;
  const vectorCandidate = env.CHAT_HYBRID_VECTOR_CANDIDATE?.trim();
  if (vectorCandidate) {
    if (!/^(0|1|true|false)$/.test(vectorCandidate))
      throw new Error(`CHAT_HYBRID_VECTOR_CANDIDATE must be 1, 0, true or false, not "${vectorCandidate}"`);
    out.hybridVectorCandidate = vectorCandidate === '1' || vectorCandidate === 'true';
  }
  return out;
}

function threshold(env: Record<string, string | undefined>, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new Error(`${name} must be a number between 0 and 1, not "${raw}"`);
  return n;
}
