/**
 * Latency one request at a time: the bench questions through /api/chat, then through /api/search in each
 * mode. Sequential on purpose — this is what one visitor waits for on an otherwise idle server; load is
 * concurrency.ts's job. A few other questions go first to warm the server (JIT, PGlite's caches and
 * plans) and are not counted; they are not bench questions, so no counted question finds its pages cached
 * by its own warm-up.
 */
import { chat, search, signIn, type ChatTiming } from './client.ts';
import { percentiles, type Percentiles } from './stats.ts';

export interface Question {
  text: string;
  embedding: number[];
}

export interface ChatLatency {
  questions: number;
  answered: number;
  refused: number;
  errors: number;
  /** A few error messages, to see what went wrong without rerunning. */
  error_samples: string[];
  ttfb_ms: Percentiles;
  /** The server's own time to the start of the response (Server-Timing), answers and refusals. */
  server_ms: Percentiles;
  first_delta_ms: Percentiles;
  /** Whole answer, answer_end included: mostly the server's deliberate pause between deltas. */
  answer_total_ms: Percentiles;
  refusal_ms: Percentiles;
}

export interface SearchLatency {
  mode: 'vector' | 'lexical' | 'hybrid';
  requests: number;
  errors: number;
  response_ms: Percentiles;
  processing_ms: Percentiles;
  mean_results: number;
}

export async function chatLatency(base: string, questions: Question[], warmUp: Question[]): Promise<ChatLatency> {
  const token = await signIn(base);
  for (const q of warmUp) await chat(base, token, q.text, q.embedding);
  const timings: ChatTiming[] = [];
  for (const q of questions) timings.push(await chat(base, token, q.text, q.embedding));
  const answers = timings.filter((t) => t.kind === 'answer');
  const refusals = timings.filter((t) => t.kind === 'refusal');
  const errors = timings.filter((t) => t.kind !== 'answer' && t.kind !== 'refusal');
  return {
    questions: timings.length,
    answered: answers.length,
    refused: refusals.length,
    errors: errors.length,
    error_samples: errors.slice(0, 3).map((t) => `${t.kind} ${t.status ?? ''} ${t.error ?? ''}`.trim()),
    // Time to first byte of every response, refusals included: it is what the visitor waits for either way.
    ttfb_ms: percentiles([...answers, ...refusals].map((t) => t.ttfb_ms!).filter((x) => x !== null)),
    server_ms: percentiles([...answers, ...refusals].flatMap((t) => (t.server_ms === undefined ? [] : [t.server_ms]))),
    first_delta_ms: percentiles(answers.map((t) => t.first_delta_ms!).filter((x) => x !== null)),
    answer_total_ms: percentiles(answers.map((t) => t.total_ms)),
    refusal_ms: percentiles(refusals.map((t) => t.total_ms)),
  };
}

export async function searchLatency(
  base: string,
  questions: Question[],
  warmUp: Question[],
  mode: SearchLatency['mode'],
): Promise<SearchLatency> {
  const token = await signIn(base);
  const ask = (q: Question) => search(base, token, { query_text: q.text, embedding: q.embedding, mode });
  for (const q of warmUp) await ask(q);
  const timings = [];
  for (const q of questions) timings.push(await ask(q));
  const ok = timings.filter((t) => t.ok);
  return {
    mode,
    requests: timings.length,
    errors: timings.length - ok.length,
    response_ms: percentiles(ok.map((t) => t.total_ms)),
    processing_ms: percentiles(ok.map((t) => t.processing_ms!).filter((x) => x !== null)),
    mean_results: ok.length ? Math.round((ok.reduce((a, t) => a + t.results, 0) / ok.length) * 10) / 10 : 0,
  };
}
