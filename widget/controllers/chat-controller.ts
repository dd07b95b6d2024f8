/**
 * The conversation and the `POST /api/chat` stream. One question at a time; each question gets its own
 * AbortController; the stream is never re-POSTed automatically (a retry would ask the question twice).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { fetchEventSource } from '@microsoft/fetch-event-source';
import * as v from 'valibot';
import {
  API_PATHS,
  RefusalSchema,
  parseChatEvent,
  type ChatRequest,
  type Citation,
  type Refusal,
} from '../../protocol/index.ts';
import { ApiError, errorFromResponse, type ApiClient } from '../api/api-client.ts';
import { StreamError, StreamInterrupted, userMessageFor } from './chat-errors.ts';

export interface UserTurn {
  kind: 'user';
  id: string;
  text: string;
}
export interface AnswerTurn {
  kind: 'answer';
  id: string;
  markdown: string;
  citations: Citation[];
  status: 'pending' | 'streaming' | 'done' | 'error';
  /** Plain-words error shown under whatever part of the answer arrived. */
  error?: string;
}
export interface RefusalTurn {
  kind: 'refusal';
  id: string;
  message: string;
  suggestions: string[];
}
export type Turn = UserTurn | AnswerTurn | RefusalTurn;

/** The server answered with a JSON refusal instead of a stream. */
class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super('refused');
  }
}
export class ChatController implements ReactiveController {
  turns: Turn[] = [];
  busy = false;
  /** Sent with every later question so the server keeps one conversation. */
  sessionId?: string;
  private abort?: AbortController;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly api: () => ApiClient,
  ) {
    host.addController(this);
  }

  hostDisconnected(): void {
    this.abort?.abort();
  }

  /** Ask a question: `embed` turns it into the query vector (it runs in the embedder worker). */
  async ask(text: string, embed: (text: string) => Promise<number[]>): Promise<void> {
    const message = text.trim();
    if (!message || this.busy) return;
    this.busy = true;
    const abort = (this.abort = new AbortController());
    const messageId = uuid();
    this.turns = [...this.turns, { kind: 'user', id: messageId, text: message }];
    const answer: AnswerTurn = { kind: 'answer', id: uuid(), markdown: '', citations: [], status: 'pending' };
    this.push(answer);
    try {
      const embedding = await embed(message);
      const body: ChatRequest = { embedding, message, message_id: messageId };
      if (this.sessionId) body.session_id = this.sessionId;
      await this.send(body, answer, abort.signal);
    } catch (error) {
      if (abort.signal.aborted) return;
      if (error instanceof Refused) {
        // The refusal replaces the (empty) pending answer.
        this.turns = this.turns.filter((turn) => turn !== answer);
        const { message: refusalMessage, suggestions } = error.refusal;
        this.push({ kind: 'refusal', id: answer.id, message: refusalMessage, suggestions });
      } else {
        if (!(error instanceof ApiError || error instanceof StreamError || error instanceof StreamInterrupted)) {
          console.warn('[kb-chat] question failed:', error);
        }
        this.update(answer, { status: 'error', error: userMessageFor(error, answer.markdown !== '') });
      }
    } finally {
      if (this.abort === abort) this.abort = undefined;
      this.busy = false;
      this.host.requestUpdate();
    }
  }

  /** POST with the cached token; on a 401 sign in again once and resend (same message_id: idempotent). */
  private async send(body: ChatRequest, answer: AnswerTurn, signal: AbortSignal): Promise<void> {
    const api = this.api();
    let token = await api.token();
    try {
      await this.stream(body, token, answer, signal);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
      api.invalidateToken(token);
      token = await api.token();
      await this.stream(body, token, answer, signal);
    }
  }

  private async stream(body: ChatRequest, token: string, answer: AnswerTurn, signal: AbortSignal): Promise<void> {
    let ended = false;
    await fetchEventSource(this.api().url(API_PATHS.chat), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        // Lower-case: fetch-event-source adds its own `accept` unless this exact key is present.
        accept: 'text/event-stream, application/json',
      },
      body: JSON.stringify(body),
      signal,
      // The default (false) aborts when the tab is hidden and re-POSTs when it is shown again.
      openWhenHidden: true,
      onopen: async (response) => {
        const type = response.headers.get('content-type') ?? '';
        if (response.ok && type.startsWith('text/event-stream')) return;
        if (!response.ok) throw await errorFromResponse(response);
        const refusal = type.includes('application/json') ? v.safeParse(RefusalSchema, await response.json()) : null;
        if (refusal?.success) throw new Refused(refusal.output);
        throw new ApiError(response.status, 'unexpected_response');
      },
      onmessage: (message) => {
        if (!message.event && !message.data) return; // keep-alive comment
        const event = parseChatEvent(message.event, message.data);
        switch (event.event) {
          case 'answer_start':
            this.sessionId = event.data.session_id;
            this.update(answer, { status: 'streaming' });
            break;
          case 'answer_delta':
            this.update(answer, { status: 'streaming', markdown: answer.markdown + event.data.text });
            break;
          case 'sources':
            this.update(answer, { citations: event.data.citations });
            break;
          case 'answer_end':
            ended = true;
            this.update(answer, { status: 'done' });
            break;
          case 'error':
            throw new StreamError(event.data.code);
        }
      },
      onclose: () => {
        if (!ended) throw new StreamInterrupted();
      },
      // Throwing stops fetch-event-source from retrying (its default re-POSTs every second, forever).
      onerror: (error: unknown) => {
        if (error instanceof Refused || error instanceof ApiError || error instanceof StreamError) throw error;
        if (error instanceof StreamInterrupted) throw error;
        throw new StreamInterrupted(error);
      },
    });
  }

  private push(turn: Turn): void {
    this.turns = [...this.turns, turn];
    this.host.requestUpdate();
  }

  /** Replace a turn with an updated copy, so templates keyed by identity see the change. */
  private update(answer: AnswerTurn, patch: Partial<AnswerTurn>): void {
    Object.assign(answer, patch);
    this.turns = this.turns.map((turn) => (turn.id === answer.id ? { ...answer } : turn));
    this.host.requestUpdate();
  }
}

/** `crypto.randomUUID` exists only in secure contexts; a widget may be embedded on a plain-http page. */
function uuid(): string {
  if (typeof crypto.randomUUID === 'function' && globalThis.isSecureContext) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
