/**
 * Many visitors at once against one server: each visitor signs in beforehand (its own token, so the
 * per-visitor rate limit is not what is measured), then all of them start together and each asks its
 * questions one after another, reading every answer to its end. What a crowd gets: answers per second,
 * time to first byte of the answers served, and what the rest got — a 503 (the server's cap on open
 * streams or admission; it must say when to come back, Retry-After) or an error. A 503 is counted, not
 * retried; that visitor waits Retry-After before its next question.
 */
import { chat, signIn, type ChatTiming } from './client.ts';
import type { Question } from './latency.ts';
import { percentiles, type Percentiles } from './stats.ts';

export interface ConcurrencyResult {
  visitors: number;
  rounds: number;
  requests: number;
  answered: number;
  refused: number;
  /** Completed answers (answer_end received) per second of wall time. */
  answers_per_second: number;
  wall_seconds: number;
  /** Of the requests served (2xx: answers and refusals). */
  ttfb_ms: Percentiles;
  /** Of the requests served: the server's own time to the start of the response, and its admission wait. */
  server_ms: Percentiles;
  queue_ms: Percentiles;
  first_delta_ms: Percentiles;
  unavailable_503: number;
  /** How long a 503 took to arrive (request sent → body read): shedding must be quick to be kind. */
  unavailable_ms: Percentiles;
  /** Every request: the call → its headers written, this client's own queue (not in the times above). */
  client_send_delay_ms: Percentiles;
  /** How many of the 503s carried a Retry-After header (should be all). */
  unavailable_with_retry_after: number;
  /** Non-2xx other than 503, network errors and timeouts, streams ending in an error event or cut short. */
  errors: number;
  error_samples: string[];
}

/** `base`: one server, or several sharing a database — visitor v then signs in and asks on base[v mod N]. */
export async function concurrencyRun(
  base: string | readonly string[],
  questions: Question[],
  visitors: number,
  rounds: number,
): Promise<ConcurrencyResult> {
  const bases = typeof base === 'string' ? [base] : base;
  const serverOf = (v: number) => bases[v % bases.length]!;
  const tokens: string[] = [];
  while (tokens.length < visitors) {
    const batch = Math.min(20, visitors - tokens.length);
    const first = tokens.length;
    tokens.push(...(await Promise.all(Array.from({ length: batch }, (_, i) => signIn(serverOf(first + i))))));
  }
  const timings: ChatTiming[] = [];
  const started = performance.now();
  await Promise.all(
    tokens.map(async (token, v) => {
      for (let r = 0; r < rounds; r++) {
        const q = questions[(v * rounds + r) % questions.length]!;
        const timing = await chat(serverOf(v), token, q.text, q.embedding);
        timings.push(timing);
        // A visitor told 503 comes back when Retry-After says (as the widget asks them to), not at once:
        // a crowd retrying instantly would measure its own flood rather than the server.
        if (timing.status === 503) await new Promise((r) => setTimeout(r, 1000 * Number(timing.retry_after ?? 1)));
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  const served = timings.filter((t) => t.kind === 'answer' || t.kind === 'refusal');
  const unavailable = timings.filter((t) => t.kind === 'http_error' && t.status === 503);
  const errors = timings.filter((t) => t.kind !== 'answer' && t.kind !== 'refusal' && !unavailable.includes(t));
  const answered = timings.filter((t) => t.kind === 'answer').length;
  return {
    visitors,
    rounds,
    requests: timings.length,
    answered,
    refused: timings.filter((t) => t.kind === 'refusal').length,
    answers_per_second: Math.round((answered / wall) * 10) / 10,
    wall_seconds: Math.round(wall * 10) / 10,
    ttfb_ms: percentiles(served.map((t) => t.ttfb_ms!).filter((x) => x !== null)),
    server_ms: percentiles(served.flatMap((t) => (t.server_ms === undefined ? [] : [t.server_ms]))),
    queue_ms: percentiles(served.flatMap((t) => (t.queue_ms === undefined ? [] : [t.queue_ms]))),
    first_delta_ms: percentiles(served.map((t) => t.first_delta_ms!).filter((x) => x !== null)),
    unavailable_503: unavailable.length,
    unavailable_ms: percentiles(unavailable.map((t) => t.total_ms)),
    client_send_delay_ms: percentiles(timings.map((t) => t.send_delay_ms)),
    unavailable_with_retry_after: unavailable.filter((t) => t.retry_after !== null).length,
    errors: errors.length,
    error_samples: [...new Set(errors.map((t) => `${t.kind} ${t.status ?? ''} ${t.error ?? ''}`.trim()))].slice(0, 3),
  };
}
