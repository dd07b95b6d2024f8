/**
 * The bench's HTTP client: what the widget does, timed. A chat answer is an SSE stream read chunk by chunk
 * from fetch's body, so the times are those a browser sees: the first byte of the body (the server has
 * retrieved and started the answer) and the first `answer_delta` event (the first words on screen). Every
 * request has a timeout; nothing but 127.0.0.1 is ever asked.
 *
 * Times start when the request's headers are written to its socket (undici's `undici:client:sendHeaders`
 * diagnostics channel), as a browser's TTFB does (DevTools' "Waiting for server response" starts after
 * "Request sent", not at the call): one process sending for 200 visitors at once queues its own sends —
 * up to 0.7 s in the first burst of the 2-core crowd — and that queue is the load generator's, not a
 * visitor's. How long the call waited before its request went out is reported beside it (`send_delay_ms`).
 */
import { randomUUID } from 'node:crypto';
import diagnostics_channel from 'node:diagnostics_channel';
import type { SearchResponse } from '../../protocol/search.ts';

export const REQUEST_TIMEOUT_MS = 30_000;

/** The header naming a chat request's message_id, so the moment its headers are written can be found. */
const BENCH_ID_HEADER = 'x-kb-bench-id';
/** When each chat request's headers were written to its socket (performance.now()), by message_id. */
const headersSentAt = new Map<string, number>();
const benchIds = new WeakMap<object, string>();
diagnostics_channel.subscribe('undici:request:create', (message) => {
  const { request } = message as { request: { headers?: unknown } };
  const headers = request.headers;
  if (!Array.isArray(headers)) return;
  const at = headers.findIndex((h, i) => i % 2 === 0 && String(h).toLowerCase() === BENCH_ID_HEADER);
  if (at >= 0) benchIds.set(request, String(headers[at + 1]));
});
diagnostics_channel.subscribe('undici:client:sendHeaders', (message) => {
  const id = benchIds.get((message as { request: object }).request);
  if (id !== undefined) headersSentAt.set(id, performance.now());
});

export type ChatKind = 'answer' | 'refusal' | 'http_error' | 'network_error' | 'stream_error';

export interface ChatTiming {
  kind: ChatKind;
  /** The question's message_id (what the server stores it under). */
  message_id: string;
  /** When the request was sent — its headers written (performance.now() of this process), to line requests up in time. */
  started_ms: number;
  /** The call → its headers written: this client's own queue, not counted in the times below (ms). */
  send_delay_ms: number;
  status: number | null;
  /** Request sent → first chunk of the response body (ms). */
  ttfb_ms: number | null;
  /** Request sent → first `answer_delta` event (ms); answers only. */
  first_delta_ms: number | null;
  /** Request sent → body read to the end (ms). */
  total_ms: number;
  /** The Retry-After header of an error response, if any. */
  retry_after: string | null;
  /** The server's own time to the start of the response (its Server-Timing `app`), and its admission wait. */
  server_ms?: number;
  queue_ms?: number;
  error?: string;
}

export async function signIn(base: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/anonymous`, {
    method: 'POST',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`sign-in: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** One question through POST /api/chat as the widget asks it (embedded in the "browser", SSE accepted). */
export async function chat(
  base: string,
  token: string,
  message: string,
  embedding: number[],
  messageId = randomUUID(),
): Promise<ChatTiming> {
  const called = performance.now();
  let status: number | null = null;
  let firstByteAt: number | null = null;
  let firstDeltaAt: number | null = null;
  /** The times relative to the moment the request went out (the call's, if its headers were never written). */
  const times = () => {
    const sent = headersSentAt.get(messageId) ?? called;
    headersSentAt.delete(messageId);
    const from = (at: number | null) => (at === null ? null : at - sent);
    return {
      message_id: messageId,
      started_ms: sent,
      send_delay_ms: sent - called,
      ttfb_ms: from(firstByteAt),
      first_delta_ms: from(firstDeltaAt),
      total_ms: performance.now() - sent,
    };
  };
  try {
    const response = await fetch(`${base}/api/chat`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
        [BENCH_ID_HEADER]: messageId,
      },
      body: JSON.stringify({ message_id: messageId, message, embedding }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    status = response.status;
    const retryAfter = response.headers.get('Retry-After');
    const serverMs = serverTiming(response.headers.get('Server-Timing'));
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let kind: ChatKind | null = null;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      firstByteAt ??= performance.now();
      text += decoder.decode(value, { stream: true });
      if (!response.headers.get('Content-Type')?.includes('text/event-stream')) continue;
      // Events end with a blank line; only complete ones are looked at.
      const end = text.lastIndexOf('\n\n');
      if (end < 0) continue;
      for (const event of eventNames(text.slice(0, end))) {
        if (event === 'answer_delta') firstDeltaAt ??= performance.now();
        if (event === 'answer_end') kind = 'answer';
        if (event === 'error') kind = 'stream_error';
      }
      text = text.slice(end + 2);
    }
    if (!response.ok)
      return {
        ...times(),
        kind: 'http_error',
        status,
        first_delta_ms: null,
        retry_after: retryAfter,
        error: text.slice(0, 200),
      };
    if (!kind && !response.headers.get('Content-Type')?.includes('text/event-stream')) {
      kind = (JSON.parse(text) as { type?: string }).type === 'refusal' ? 'refusal' : 'http_error';
    }
    return {
      ...times(),
      kind: kind ?? 'stream_error',
      status,
      retry_after: retryAfter,
      ...serverMs,
      ...(kind ? {} : { error: 'the stream ended without answer_end' }),
    };
  } catch (error) {
    return { ...times(), kind: 'network_error', status, retry_after: null, error: String(error) };
  }
}

/** `Server-Timing: app;dur=12.3, queue;dur=0.4` → { server_ms: 12.3, queue_ms: 0.4 }. */
function serverTiming(header: string | null): { server_ms?: number; queue_ms?: number } {
  const out: { server_ms?: number; queue_ms?: number } = {};
  for (const [, name, dur] of (header ?? '').matchAll(/(\w+);dur=([\d.]+)/g)) {
    if (name === 'app') out.server_ms = Number(dur);
    if (name === 'queue') out.queue_ms = Number(dur);
  }
  return out;
}

function* eventNames(block: string): Generator<string> {
  for (const line of block.split('\n')) if (line.startsWith('event:')) yield line.slice(6).trim();
}

export interface SearchTiming {
  ok: boolean;
  status: number | null;
  /** Request sent → whole JSON body read (ms). */
  total_ms: number;
  /** The server's own `processing_time_ms`. */
  processing_ms: number | null;
  results: number;
  error?: string;
}

export async function search(
  base: string,
  token: string,
  body: { query_text: string; embedding: number[]; mode: 'vector' | 'lexical' | 'hybrid'; top_k?: number },
): Promise<SearchTiming> {
  const started = performance.now();
  try {
    const response = await fetch(`${base}/api/search`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      // Lexical mode gets no embedding and vector mode no text, as a site search box of either kind would send.
      body: JSON.stringify({
        mode: body.mode,
        top_k: body.top_k ?? 8,
        ...(body.mode !== 'vector' ? { query_text: body.query_text } : {}),
        ...(body.mode !== 'lexical' ? { embedding: body.embedding } : {}),
      }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    const total = performance.now() - started;
    if (!response.ok)
      return {
        ok: false,
        status: response.status,
        total_ms: total,
        processing_ms: null,
        results: 0,
        error: text.slice(0, 200),
      };
    const json = JSON.parse(text) as Partial<SearchResponse>;
    return {
      ok: true,
      status: response.status,
      total_ms: total,
      processing_ms: typeof json.processing_time_ms === 'number' ? json.processing_time_ms : null,
      results: json.results?.length ?? 0,
    };
  } catch (error) {
    return {
      ok: false,
      status: null,
      total_ms: performance.now() - started,
      processing_ms: null,
      results: 0,
      error: String(error),
    };
  }
}
