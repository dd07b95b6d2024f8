/**
 * Sends an answer as Server-Sent Events: `answer_start`, `answer_delta`…, `sources`, `answer_end`, each with
 * an `id:` of `<message_id>:<n>`. The sequence is a pure function of the stored answer, so a retry (same
 * message id) replays exactly the same events, and a reconnect with `Last-Event-ID` gets only the rest.
 * Heartbeat comments keep proxies from closing a quiet connection; a client that stops reading is dropped
 * after the idle timeout; a client that disconnects stops the sending (the answer is still stored, so a
 * retry can replay it).
 */
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { ChatEvent } from '../../protocol/index.ts';
import { fromStoreError } from '../http/errors.ts';
import type { AnswerOutcome } from './answer.ts';

export interface StreamOptions {
  /** Comment lines every so often while a stream is open (default 15 s). */
  heartbeatMs: number;
  /** A write that cannot complete for this long (the client stopped reading) ends the stream. */
  idleTimeoutMs: number;
  /** Pause between answer deltas, so the answer visibly streams; 0 sends them back to back. */
  deltaDelayMs: number;
}

/** The events of an answer, in order; `answer_end` carries the stored message id. */
export function answerEvents(outcome: AnswerOutcome, answerMessageId: string): ChatEvent[] {
  return [...answerBody(outcome), { event: 'answer_end', data: { message_id: answerMessageId } }];
}

/** Everything before `answer_end`: what can be sent before the answer is stored. */
function answerBody(outcome: AnswerOutcome): ChatEvent[] {
  return [
    {
      event: 'answer_start',
      data: {
        session_id: outcome.session_id,
        message_id: outcome.message_id,
        confidence: outcome.confidence,
        mode: outcome.mode,
        ...(outcome.warning ? { warning: outcome.warning } : {}),
        ...(outcome.context ? { context: outcome.context } : {}),
      },
    },
    ...[...deltas(outcome.text)].map((text): ChatEvent => ({ event: 'answer_delta', data: { text } })),
    {
      event: 'sources',
      data: {
        citations: outcome.citations,
        ...(outcome.related.length > 0 ? { related: outcome.related } : {}),
        ...(outcome.passages ? { passages: outcome.passages } : {}),
        ...(outcome.generated ? { generated: outcome.generated } : {}),
      },
    },
  ];
}

/**
 * The answer a dozen words at a time, so the widget renders it as it arrives. Each delta is one socket write
 * and one timer on the server, so the step trades smoothness for CPU: 12 words every 45 ms (app.ts) shows
 * the same 260-odd words a second as 4 every 15 ms did, with a third of the writes — the Node server's CPU
 * per chat on PostgreSQL fell from 29–31 ms to 24–25 ms (scripts/bench/cpu-cost.ts, two pairs). A screen
 * refreshes every 16–17 ms, so 4-word steps were mostly not seen one by one anyway.
 */
export function* deltas(text: string, wordsPerDelta = 12): Generator<string> {
  const words = text.split(/(?<=\s)/);
  for (let i = 0; i < words.length; i += wordsPerDelta) yield words.slice(i, i + wordsPerDelta).join('');
}

/** `Last-Event-ID: <message_id>:<n>` → n, when it belongs to this message. */
export function resumeAfter(lastEventId: string | undefined, messageId: string): number {
  const match = /^(.+):(\d+)$/.exec(lastEventId ?? '');
  return match && match[1] === messageId ? Number(match[2]) : -1;
}

const SSE_HEADERS = {
  'Cache-Control': 'no-cache, no-transform',
  'Content-Encoding': 'identity',
  'X-Accel-Buffering': 'no',
};

export function streamAnswer(
  c: Context,
  outcome: AnswerOutcome,
  store: (outcome: AnswerOutcome) => Promise<string>,
  options: StreamOptions,
  onClose: () => void,
): Response {
  const skipThrough = resumeAfter(c.req.header('Last-Event-ID'), outcome.message_id);
  const response = streamSSE(c, async (stream) => {
    const heartbeat = setInterval(() => void stream.write(': keep-alive\n\n').catch(() => {}), options.heartbeatMs);
    // Stored once, when answer_end needs the id — after the deltas, so a database failure there still
    // reaches the client as an in-band error — or at the latest when the stream ends for any reason, so a
    // retry with the same message id replays the answer even if this client left or stalled.
    // Stored by one call (the store retries what it safely can); a failure is not tried again at the end,
    // so a database that is down costs the visitor one bounded wait, and their Retry stores it later.
    let answerId = outcome.answer_message_id;
    let storing: Promise<string> | undefined;
    const stored = () =>
      answerId ? Promise.resolve(answerId) : (storing ??= store(outcome).then((id) => (answerId = id)));
    const body = answerBody(outcome);
    const send = async (seq: number, event: ChatEvent) => {
      if (seq <= skipThrough) return;
      await writeWithin(stream, event, `${outcome.message_id}:${seq}`, options.idleTimeoutMs);
      if (event.event === 'answer_delta' && options.deltaDelayMs > 0) await sleep(options.deltaDelayMs);
    };
    try {
      for (const [seq, event] of body.entries()) {
        if (stream.aborted) return;
        await send(seq, event);
      }
      if (!stream.aborted) await send(body.length, { event: 'answer_end', data: { message_id: await stored() } });
    } catch (error) {
      // Handled here, not by streamSSE's onError: Hono follows onError with an `error` event carrying the
      // raw exception message, which must never reach a client.
      console.error('[kb-chat] stream failed', error);
      const { code, message } = fromStoreError(error);
      if (!stream.aborted)
        await stream.writeSSE({ event: 'error', data: JSON.stringify({ code, message }) }).catch(() => {});
    } finally {
      clearInterval(heartbeat);
      await stored().catch(() => {});
      onClose();
    }
  });
  // Cloudflare (and other proxies) may buffer or compress a response they think is compressible; an
  // explicit identity encoding keeps an event stream flowing event by event. Set through the context as
  // well as on the response: Hono copies headers already set on `c.res` (by streamSSE, by middleware) over
  // the returned response.
  for (const [name, value] of Object.entries(SSE_HEADERS)) {
    c.header(name, value);
    response.headers.set(name, value);
  }
  return response;
}

async function writeWithin(stream: SSEStreamingApi, event: ChatEvent, id: string, timeoutMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('client idle')), timeoutMs);
  });
  try {
    await Promise.race([stream.writeSSE({ event: event.event, data: JSON.stringify(event.data), id }), idle]);
  } catch (error) {
    stream.abort();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
