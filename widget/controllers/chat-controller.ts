// Long file: one question's whole exchange (embed, send, stream, retry, store) as one controller, whose states depend on each other.
/**
 * The conversation and the `POST /api/chat` stream (Lit's Task is the model): one AbortController per
 * question, a new question aborts the unfinished one, events of a superseded run are ignored. A dropped
 * stream is never re-POSTed automatically; the user's Retry re-sends the SAME message_id, so the server
 * replays the stored answer instead of answering twice (with `Last-Event-ID` when we have one, to resume).
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { parseChatEvent, type ChatRequest, type Citation, type Passage, type Related } from '../../protocol/chat.ts';
import { earlierTopic, followUpText, type AnswerContext } from '../../protocol/context.ts';
import type { FeedbackRating } from '../../protocol/feedback.ts';
import type { SessionDetail } from '../../protocol/history.ts';
import { ApiError, Refused, type ApiClient } from '../api/api-client.ts';
import { StreamError, StreamInterrupted } from './chat-errors.ts';

export interface UserTurn {
  kind: 'user';
  id: string;
  text: string;
}
/**
 * Generative mode: the answer the visitor's model writes from the cited passages, beside the
 * quoted one. `failed` (an error, a timeout, "I cannot answer") leaves the quoted answer alone on screen.
 */
export interface WrittenAnswer {
  status: 'writing' | 'done' | 'failed';
  markdown: string;
  model?: string;
}

/** What an answer or a refusal needs to be rated (`POST /api/feedback`). */
interface Ratable {
  /** The stored assistant message (answer_end's, the refusal's, the history's id); unset until it is stored. */
  answerId?: string;
  /** The visitor's earlier rating, from history. */
  feedback?: FeedbackRating;
}
export interface AnswerTurn extends Ratable {
  kind: 'answer';
  id: string;
  /** Generative mode: the cited passages' text, which the generator writes from. */
  passages?: Passage[];
  written?: WrittenAnswer;
  /** Which of the two answers is on screen; the written one when there is one, unless the visitor chose. */
  view?: 'written' | 'quoted';
  markdown: string;
  /** The sources the answer quotes, numbered like its `[n]` markers. */
  citations: Citation[];
  /** Other qualifying sources it does not quote: offered under "Related", never numbered or counted. */
  related: Related[];
  /** `waiting`: told 503 + Retry-After, it waits that long before its one automatic retry. */
  status: 'pending' | 'waiting' | 'streaming' | 'done' | 'error' | 'cancelled';
  /** While `waiting`: the seconds the server asked it to wait. */
  retryInSeconds?: number;
  /** What failed, for plain words in the view. */
  error?: unknown;
  /** The request, kept so Retry re-sends exactly the same question (same message_id). */
  request?: ChatRequest;
  lastEventId?: string;
  mode?: string;
  confidence?: string;
  warning?: string;
  /** Asked while the model was still loading: answered from keyword search, and the answer says so. */
  modelLoading?: boolean;
  /** A follow-up answered in the context of the turn before it (shown as "About: …"). */
  context?: AnswerContext;
}
export interface RefusalTurn extends Ratable {
  kind: 'refusal';
  id: string;
  message: string;
  /** An owner's questions, sent when clicked. */
  suggestions: string[];
  /** What the widget offers to do instead (`rephrase`, `contact_support`). */
  actions: string[];
  /** The closest pages, when a passage came near the evidence needed. */
  closest: Related[];
}
export type Turn = UserTurn | AnswerTurn | RefusalTurn;

export interface ChatEvents {
  question(detail: { message: string; messageId: string; sessionId?: string; keyword: boolean }): void;
  answer(turn: AnswerTurn, sessionId: string | undefined): void;
  refusal(turn: RefusalTurn): void;
  error(turn: AnswerTurn): void;
  session(sessionId: string | undefined): void;
}

/** Longer waits than this are not taken on the visitor's behalf: they see the error and a Retry. */
const MAX_AUTO_WAIT_SECONDS = 30;

export class ChatController implements ReactiveController {
  turns: Turn[] = [];
  /** Sent with every later question so the server keeps one conversation. */
  sessionId?: string;
  private abort?: AbortController;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly api: () => ApiClient,
    private readonly events: ChatEvents,
  ) {
    host.addController(this);
  }

  hostDisconnected(): void {
    this.abort?.abort();
  }

  get busy(): boolean {
    return this.abort !== undefined;
  }

  /**
   * Ask a question. `embed` turns it into the query vector; without it the server answers in keyword mode.
   * `modelLoading`: there is no `embed` because the model is still on its way (the answer notes it).
   */
  async ask(
    text: string,
    embed?: (text: string) => Promise<number[]>,
    { modelLoading = false, context = true } = {},
  ): Promise<void> {
    const message = text.trim();
    if (!message) return;
    // A follow-up is embedded with the words of the turn before it, as the server searches it
    // (protocol/context.ts); `context: false` ("Ask as a new question") embeds and sends it alone.
    const embedText = context ? followUpText(message, this.earlierTurn()) : message;
    this.cancel();
    const messageId = uuid();
    this.push({ kind: 'user', id: messageId, text: message });
    const answer: AnswerTurn = {
      kind: 'answer',
      id: uuid(),
      markdown: '',
      citations: [],
      related: [],
      status: 'pending',
      modelLoading,
    };
    this.push(answer);
    const abort = (this.abort = new AbortController());
    try {
      const request: ChatRequest = { message, message_id: messageId, ...(context ? {} : { context: false }) };
      if (embed) {
        // A question is never lost to the model: if embedding fails (the worker died), keyword mode answers it.
        const embedding = await embed(embedText).catch((error: unknown) => {
          console.warn('[kb-chat] embedding failed; asking in keyword mode:', error);
          return undefined;
        });
        if (embedding) request.embedding = embedding;
      }
      // After the embedding, so `keyword` says how the question is really asked (a failed embedding falls back).
      this.events.question({ message, messageId, sessionId: this.sessionId, keyword: !request.embedding });
      if (this.sessionId) request.session_id = this.sessionId;
      answer.request = request;
      await this.run(answer, abort);
    } catch (error) {
      this.fail(answer, abort, error);
    }
  }

  /** The last question asked and what its answer was about (when it was a follow-up itself). */
  private earlierTurn(): { question: string; about?: string } | null {
    const turns: { question: string; about?: string }[] = [];
    // The last three questions, newest first, as the server reads them (server/chat/context.ts).
    for (let at = this.turns.length - 1; at >= 0 && turns.length < 3; at -= 1) {
      const turn = this.turns[at]!;
      if (turn.kind !== 'user') continue;
      const reply = this.turns[at + 1];
      const about = reply?.kind === 'answer' && reply.context?.used ? reply.context.about : undefined;
      turns.push({ question: turn.text, ...(about ? { about } : {}) });
    }
    return earlierTopic(turns);
  }

  /** Re-send a failed question with its original message_id: the server replays, it does not answer twice. */
  async retry(answerId: string): Promise<void> {
    const answer = this.turns.find((t): t is AnswerTurn => t.kind === 'answer' && t.id === answerId);
    if (!answer?.request || (answer.status !== 'error' && answer.status !== 'cancelled')) return;
    this.cancel();
    const abort = (this.abort = new AbortController());
    this.update(answer, { status: 'pending', error: undefined });
    try {
      await this.run(answer, abort);
    } catch (error) {
      this.fail(answer, abort, error);
    }
  }

  /** Stop the unfinished answer, if any (a new question, a new chat, another session). */
  cancel(): void {
    const abort = this.abort;
    if (!abort) return;
    this.abort = undefined;
    abort.abort();
    for (const turn of this.turns) {
      if (
        turn.kind === 'answer' &&
        (turn.status === 'pending' || turn.status === 'waiting' || turn.status === 'streaming')
      ) {
        this.update(turn, { status: 'cancelled' });
      }
    }
  }

  newChat(): void {
    this.cancel();
    this.turns = [];
    this.setSession(undefined);
    this.host.requestUpdate();
  }

  /** Show a stored conversation (history); later questions continue it. */
  restore(detail: SessionDetail): void {
    this.cancel();
    this.turns = detail.messages.map((m): Turn => {
      if (m.role === 'user') return { kind: 'user', id: m.id, text: m.content };
      const rated = { answerId: m.id, feedback: m.feedback };
      if (m.refusal) return { kind: 'refusal', id: m.id, message: m.content, ...refusalParts(m.refusal), ...rated };
      return {
        kind: 'answer',
        id: m.id,
        markdown: m.content,
        citations: m.citations ?? [],
        related: m.related ?? [],
        status: 'done',
        ...(m.context ? { context: m.context } : {}),
        ...rated,
        ...(m.generated
          ? { written: { status: 'done', markdown: m.generated.text, model: m.generated.model }, view: 'written' }
          : {}),
      };
    });
    this.setSession(detail.session.id);
    this.host.requestUpdate();
  }

  private async run(answer: AnswerTurn, abort: AbortController): Promise<void> {
    try {
      await this.sendPatiently(answer, abort.signal);
    } finally {
      if (this.abort === abort) this.abort = undefined;
      this.host.requestUpdate();
    }
  }

  private fail(answer: AnswerTurn, abort: AbortController, error: unknown): void {
    if (abort.signal.aborted) return;
    if (this.abort === abort) this.abort = undefined;
    if (error instanceof Refused) {
      // The refusal replaces the (empty) pending answer.
      const { message, message_id: answerId } = error.refusal;
      const refusal: RefusalTurn = {
        kind: 'refusal',
        id: answer.id,
        message,
        ...refusalParts(error.refusal),
        answerId,
      };
      this.turns = this.turns.map((turn) => (turn.id === answer.id ? refusal : turn));
      this.host.requestUpdate();
      this.events.refusal(refusal);
      return;
    }
    if (!(error instanceof ApiError || error instanceof StreamError || error instanceof StreamInterrupted)) {
      console.warn('[kb-chat] question failed:', error);
    }
    this.update(answer, { status: 'error', error });
    this.events.error(answer);
  }

  /**
   * A 503 with Retry-After (the server is shedding load, or its database is briefly away) is waited out once,
   * visibly (`waiting`), then the same message_id is sent again — idempotent, so at most one answer is
   * stored. A second 503, or a wait longer than MAX_AUTO_WAIT_SECONDS, is left to the user's Retry.
   */
  private async sendPatiently(answer: AnswerTurn, signal: AbortSignal): Promise<void> {
    try {
      await this.send(answer, signal);
    } catch (error) {
      const wait = error instanceof ApiError && error.status === 503 ? error.retryAfter : undefined;
      if (wait === undefined || wait > MAX_AUTO_WAIT_SECONDS || signal.aborted) throw error;
      this.update(answer, { status: 'waiting', retryInSeconds: Math.ceil(wait) });
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, wait * 1000);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), { once: true });
      });
      if (signal.aborted) return;
      this.update(answer, { status: 'pending', retryInSeconds: undefined });
      await this.send(answer, signal);
    }
  }

  /** POST with the token; on a 401 sign in again once and resend (same message_id: idempotent). */
  private async send(answer: AnswerTurn, signal: AbortSignal): Promise<void> {
    const api = this.api();
    let token = await api.token();
    try {
      await this.stream(answer, token, signal);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401 && api.canRenewToken)) throw error;
      api.invalidateToken(token);
      token = await api.token();
      await this.stream(answer, token, signal);
    }
  }

  private async stream(answer: AnswerTurn, token: string, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return; // cancelled while waiting for the token: send nothing
    let ended = false;
    try {
      await this.api().chat(answer.request, token, signal, answer.lastEventId, (message) => {
        // A superseded run, or a blank message (the server's `: keep-alive` comments).
        if (signal.aborted || (!message.event && !message.data)) return;
        const event = parseChatEvent(message.event, message.data);
        if (message.id) answer.lastEventId = message.id;
        switch (event.event) {
          case 'answer_start': {
            const { session_id, mode, confidence, warning, context } = event.data;
            this.setSession(session_id);
            // A replay (Retry without resume) starts over: show it once, not twice.
            this.update(answer, {
              status: 'streaming',
              markdown: '',
              citations: [],
              related: [],
              mode,
              confidence,
              warning,
              context,
            });
            break;
          }
          case 'answer_delta':
            this.update(answer, { status: 'streaming', markdown: answer.markdown + event.data.text });
            break;
          case 'sources': {
            const { citations, related, passages, generated } = event.data;
            this.update(answer, {
              citations,
              related: related ?? [],
              passages,
              // A replay of an answer whose written version is stored: shown as it was, not written again.
              ...(generated
                ? {
                    written: { status: 'done', markdown: generated.text, model: generated.model },
                    view: 'written' as const,
                  }
                : {}),
            });
            break;
          }
          case 'answer_end':
            ended = true;
            this.update(answer, { status: 'done', answerId: event.data.message_id });
            this.events.answer(answer, this.sessionId);
            break;
          case 'error':
            throw new StreamError(event.data.code);
        }
      });
    } catch (error) {
      if (signal.aborted || error instanceof ApiError || error instanceof Refused || error instanceof StreamError)
        throw error;
      // A network failure, a connection dropped mid-answer, an event that breaks the wire contract.
      throw new StreamInterrupted(error);
    }
    if (!ended && !signal.aborted) throw new StreamInterrupted();
  }

  /** Change an answer from outside the stream (its written version, the view the visitor chose). */
  patch(answerId: string, patch: Partial<Pick<AnswerTurn, 'written' | 'view'>>): void {
    const answer = this.turns.find((t): t is AnswerTurn => t.kind === 'answer' && t.id === answerId);
    if (answer) this.update(answer, patch);
  }

  private setSession(id: string | undefined): void {
    if (this.sessionId === id) return;
    this.sessionId = id;
    this.events.session(id);
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
export function uuid(): string {
  if (typeof crypto.randomUUID === 'function' && globalThis.isSecureContext) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A refusal's questions, actions and closest pages, from the live response or the history. */
function refusalParts(refusal: {
  suggestions: string[];
  actions?: string[];
  closest?: Related[];
}): Pick<RefusalTurn, 'suggestions' | 'actions' | 'closest'> {
  return { suggestions: refusal.suggestions, actions: refusal.actions ?? [], closest: refusal.closest ?? [] };
}
