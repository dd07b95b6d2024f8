/**
 * One chat turn, independent of how it is delivered: record the question, then either replay the stored
 * answer (a retry with the same message id) or retrieve, gate and extract a new one. The result is an
 * `Outcome` that the route sends as SSE, as one JSON body, or as a refusal.
 */
import {
  PASSAGE_MAX_CHARS,
  type AnswerContext,
  type Citation,
  type Confidence,
  type Generated,
  type Passage,
  type Refusal,
  type Related,
  type RetrievalMode,
} from '../../protocol/index.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import { retrieve, thresholdsOf, type RetrievalOptions } from '../retrieval/index.ts';
import { passes as passesGate } from '../retrieval/gate.ts';
import {
  StoreError,
  type BeginTurn,
  type ChatStore,
  type JwtClaims,
  type StoredAnswer,
  type TurnState,
} from '../store/types.ts';
import { followUpOf, holdsOwnWord, lendsWords, newQuestionText, restsOnOwnWords, threadOf } from './context.ts';
import { extractAnswer } from './extract.ts';
import { threadAnswer } from './thread-answer.ts';
import { closestPages } from './closest.ts';
import { emptyKbRefusal, noEvidenceRefusal, storedRefusal } from './refusal.ts';
import type { RuntimeSettings } from '../settings/runtime.ts';
import type { ReadChatRequest } from './request.ts';
import { sessionTitle } from './title.ts';
import { DEFAULT_ANSWER_MODE } from '../config/defaults.ts';

export interface AnswerOutcome {
  kind: 'answer';
  session_id: string;
  message_id: string;
  /** Set when the answer was already stored (a replay); otherwise it is stored while streaming. */
  answer_message_id: string | null;
  text: string;
  /** Exactly the quoted sources. */
  citations: Citation[];
  /** Qualifying sources the answer does not quote; stored in the message's meta so a replay sends them too. */
  related: Related[];
  confidence: Confidence;
  mode: RetrievalMode;
  /** The best candidate's evidence (what the gate compared); stored, for the console's median. */
  evidence?: number;
  warning?: string;
  /** Generative mode: the cited sources' text, for the widget's generator (not stored: the chunks are). */
  passages?: Passage[];
  /** A replayed answer's stored written version (generative mode). */
  generated?: Generated;
  /** A follow-up answered in the context of the turn before it (server/chat/context.ts). */
  context?: AnswerContext;
}

export interface AnswerTurnOptions {
  /**
   * The settings in effect (an admin's, else the server's; server/settings): read once per question, while
   * the turn is recorded, so it adds no wait. Their thresholds replace `retrieval`'s, their suggestions (and support address) are
   * what a "no evidence" refusal offers, and generative mode adds the passages. Must not reject (the
   * reader falls back to the server's defaults); without it, `retrieval` and extractive mode apply.
   */
  settings?: () => Promise<
    Pick<RuntimeSettings, 'answerMode' | 'retrieval' | 'refusalSuggestions'> &
      Partial<Pick<RuntimeSettings, 'supportUrl'>>
  >;
  /**
   * Where the question came from when not the widget (`mcp`: an assistant through /mcp), stored in the answer's
   * meta beside its kind so the console can tell them apart. Written with the answer write key, as the rest
   * of the meta, so a visitor cannot set it.
   */
  channel?: Channel;
  /** A follow-up's repeat weight other than REPEAT_WEIGHT: only scripts/eval/thread-sweep.ts sets it. */
  repeatWeight?: number;
}

export type Channel = 'mcp';

export type Outcome = AnswerOutcome | { kind: 'refusal'; refusal: Refusal; session_id: string };

export async function answerTurn(
  store: ChatStore,
  claims: JwtClaims,
  request: ReadChatRequest,
  retrieval: RetrievalOptions,
  { settings, channel, repeatWeight }: AnswerTurnOptions = {},
): Promise<Outcome> {
  // Without a settings reader (tests, tools): the given retrieval options, extractive mode. The app's reader
  // already falls back to the server's defaults and never rejects (server/settings/runtime.ts); the catch only
  // keeps an unexpected rejection from going unhandled while the turn is being recorded.
  const fallback = { answerMode: DEFAULT_ANSWER_MODE, retrieval, refusalSuggestions: undefined, supportUrl: null };
  const inEffect = settings?.().catch(() => fallback) ?? Promise.resolve(fallback);
  let [turn, followUp] = await Promise.all([
    beginTurn(store, claims, {
      session_id: request.session_id,
      message_id: request.message_id,
      content: request.message,
      title: sessionTitle(request.message),
    }),
    // Read beside the turn's write, and only for a question that depends on the conversation.
    followUpOf(store, claims, request).catch(rethrow),
  ]);
  if (!turn.is_new && !turn.same_request) {
    throw new AppError(409, 'conflict', 'This message id was already used for a different message.');
  }
  if (turn.answer) {
    const replayed = replay(turn, turn.answer, request);
    if (replayed.kind === 'refusal') await recordGap(store, claims, request, replayed.refusal.reason);
    return replayed;
  }

  const { answerMode, retrieval: options, refusalSuggestions, supportUrl } = await inEffect;
  const question = { claims, question: request.query, embedding: request.embedding };
  let found = await retrieve(store, { ...question, ...(followUp ? { context: followUp.sql } : {}) }, options).catch(
    rethrow,
  );
  // The gate reads the thread: a question of a conversation that the detector read as complete, refused
  // alone, is searched once more within the pages the conversation cited before it is refused. Only the
  // refusal path pays for it; an answered complete question is exactly as in a new session.
  if (found.kind === 'refuse' && !followUp) {
    const thread = await threadOf(store, claims, request).catch(rethrow);
    const again = thread
      ? await retrieve(
          store,
          { ...question, context: { ...thread.sql, own_required: true } },
          retryOptions(options),
        ).catch(rethrow)
      : null;
    if (again?.kind === 'answer') [found, followUp] = [again, thread];
  } else if (found.kind === 'refuse' && followUp) {
    // And the other way round: a follow-up refused within the thread's scope is asked once more as a new
    // question (what "Ask as a new question" does), gated as a complete question is. The thread can be what
    // refuses it: the earlier answer was refused or cited the wrong page, and off the thread a page without the
    // earlier topic's words counts as about something else. Only the refusal path pays for the second search.
    // The text searched is the follow-up's topic words, with the words it borrows when it has only one
    // (newQuestionText), as the browser's embedding holds them: with its own word alone, keyword mode searched
    // "big" for "How big is it?" after "Why is the widget stuck on Initializing AI?" and refused it. As for
    // a complete question retried in the thread, the earlier topic alone does not carry it ("And lunch?" after
    // the evidence threshold stays refused). Answered so, it is a new question's answer: no "About: …" of a
    // topic that did not answer it, and extraction as for the question alone.
    // In keyword mode, when the text carries borrowed words, it stands in for the complete question with the
    // visitor's own loose words, so it is gated lower, on a first passage that holds one of them
    // (keywordRetryOptions).
    const lowered = (options.mode === 'lexical' || !request.embedding) && lendsWords(followUp);
    const alone = await retrieve(
      store,
      { ...question, question: newQuestionText(request.query, followUp) },
      lowered ? keywordRetryOptions(options) : retryOptions(options),
    ).catch(rethrow);
    if (
      alone.kind === 'answer' &&
      restsOnOwnWords(request.query, alone.chunks) &&
      (!lowered ||
        passesGate(alone.evidence, thresholdsOf(options).lexical) ||
        holdsOwnWord(request.query, alone.chunks[0]!))
    )
      [found, followUp] = [alone, null];
  } else if (found.kind === 'answer' && !followUp) {
    // A complete question answered alone on a page it does not name, off the conversation's pages, may be
    // answered within them (server/chat/thread-answer.ts); only such a question reads the thread.
    const inThread = await threadAnswer(store, claims, request, question, found, retryOptions(options)).catch(rethrow);
    if (inThread) [found, followUp] = inThread;
  }
  if (found.kind === 'refuse') {
    // Only a refusal needs to know whether the knowledge base is empty (a check that stops at the first
    // searchable document, not kb_stats' counts).
    const hasDocuments = await store.hasDocuments().catch(rethrow);
    return refuse(
      store,
      claims,
      turn,
      request,
      hasDocuments ? noEvidenceRefusal(refusalSuggestions, closestPages(found), supportUrl ?? null) : emptyKbRefusal(),
      channel,
    );
  }

  // A follow-up's sentences are scored against the question and, at a lower weight, the words it borrows;
  // what the earlier answer already quoted is not quoted again unless nothing else answers.
  const { text, citations, related } = extractAnswer(
    request.query,
    found.chunks,
    followUp
      ? {
          borrowed: followUp.terms,
          ...(followUp.earlierAnswer ? { earlierAnswer: followUp.earlierAnswer } : {}),
          pages: [...followUp.sql.documents, ...followUp.sql.thread],
          ...(repeatWeight !== undefined ? { repeatWeight } : {}),
        }
      : {},
    found.siblings,
  );
  const passages = answerMode === 'generative' ? passagesOf(citations, found.chunks) : undefined;
  return {
    kind: 'answer',
    session_id: turn.session_id,
    message_id: request.message_id,
    answer_message_id: null,
    text,
    citations,
    related,
    confidence: found.confidence,
    mode: found.mode,
    evidence: found.evidence,
    ...(request.warning ? { warning: request.warning } : {}),
    ...(passages ? { passages } : {}),
    ...(followUp ? { context: followUp.context } : {}),
  };
}

/**
 * The options a refused question of a conversation is searched again with: as the first search, but a vector
 * mode search is gated as hybrid mode gates it (cosine and coverage, each with its own floor). In vector mode
 * the retry has the very embedding the first search was refused on, so the cosine gate cannot answer it a
 * second time; what the retry changes is the text (the thread's words for a complete question, the borrowed
 * words for a follow-up), which only a gate that reads coverage sees. Hybrid's gate is also the stricter one
 * on off-topic questions (server/retrieval/gate.ts), so a question refused in vector mode is answered on the
 * retry only when both its embedding and its words find the page. Single questions never retry.
 */
export function retryOptions(options: RetrievalOptions): RetrievalOptions {
  return options.mode === 'vector' ? { ...options, mode: 'hybrid' } : options;
}

/**
 * The share of the keyword gate (CHAT_LEXICAL_THRESHOLD) a follow-up refused within the thread must reach when
 * it is asked again as a new question in keyword mode. That search's text (newQuestionText) stands in for the
 * complete question, but with the visitor's own words, which are not the page's: "What happens if it's already
 * taken?" after the Vite dev server's port, searched as "happens already taken port vite dev", covered 0.48 of
 * the command line page's "Exit if specified port is already in use", while its complete rewrite ("… if the
 * Vite dev server port is already in use?") names the page's words and is answered. Hybrid and vector mode
 * have the browser's embedding of the question and its borrowed words to make up for such words; keyword mode
 * has only coverage. The lower gate holds only when the first passage holds one of the follow-up's own words
 * (answer.ts), so the borrowed words alone do not answer it ("Can I delete it?" after chat history, on a
 * knowledge base that never says "delete", stays refused). 0.7 is the one value measured against 1 (the gate
 * as for any question) on four sites, leave-one-site-out (docs/conversation.md, seventh pass): a round share,
 * not a swept optimum. Single questions and complete questions never take this retry.
 */
export const KEYWORD_RETRY_SHARE = 0.7;

/** The options a follow-up's retry as a new question is searched with in keyword mode: the gate lowered. */
export function keywordRetryOptions(options: RetrievalOptions): RetrievalOptions {
  return { ...options, lexicalThreshold: thresholdsOf(options).lexical * KEYWORD_RETRY_SHARE };
}

/**
 * Records the question. A session id that is not the visitor's is answered as a new conversation: row-level
 * security refused the write, and saying so would tell the visitor that the id exists.
 */
async function beginTurn(store: ChatStore, claims: JwtClaims, turn: BeginTurn): Promise<TurnState> {
  try {
    return await store.beginTurn(claims, turn);
  } catch (error) {
    if (!(error instanceof StoreError && error.kind === 'forbidden' && turn.session_id)) rethrow(error);
    return store.beginTurn(claims, { ...turn, session_id: undefined }).catch(rethrow);
  }
}

/** The text of each cited chunk, numbered like its citation and bounded (the generator reads the start). */
function passagesOf(citations: Citation[], chunks: { chunk_id: string; content: string }[]): Passage[] {
  const text = new Map(chunks.map((c) => [c.chunk_id, c.content]));
  return citations.flatMap((c) => {
    const content = text.get(c.chunk_id);
    return content === undefined
      ? []
      : [{ n: c.n, text: content.length > PASSAGE_MAX_CHARS ? content.slice(0, PASSAGE_MAX_CHARS) : content }];
  });
}

/** Stores the answer of a streamed or aggregated outcome; returns the assistant message id. */
export function storeAnswer(
  store: ChatStore,
  claims: JwtClaims,
  outcome: AnswerOutcome,
  channel?: Channel,
): Promise<string> {
  return store.finishTurn(claims, {
    session_id: outcome.session_id,
    reply_to: outcome.message_id,
    content: outcome.text,
    citations: outcome.citations,
    meta: {
      kind: 'answer',
      confidence: outcome.confidence,
      mode: outcome.mode,
      ...(outcome.evidence !== undefined ? { evidence: outcome.evidence } : {}),
      ...(outcome.related.length > 0 ? { related: outcome.related } : {}),
      ...(outcome.warning ? { warning: outcome.warning } : {}),
      ...(outcome.context ? { context: outcome.context } : {}),
      ...(channel ? { channel } : {}),
    },
  });
}

/** A refusal is an answer too: stored in the session, and counted as a content gap for the site owner. */
async function refuse(
  store: ChatStore,
  claims: JwtClaims,
  turn: TurnState,
  request: ReadChatRequest,
  refusal: Refusal,
  channel?: Channel,
): Promise<Outcome> {
  // Stored before it is returned: its id comes back with it, so the visitor can rate the refusal at once.
  const messageId = await store
    .finishTurn(claims, {
      session_id: turn.session_id,
      reply_to: request.message_id,
      content: refusal.message,
      citations: null,
      meta: {
        kind: 'refusal',
        reason: refusal.reason,
        suggestions: refusal.suggestions,
        actions: refusal.actions ?? [],
        ...(refusal.closest ? { closest: refusal.closest } : {}),
        ...(channel ? { channel } : {}),
      },
    })
    .catch(rethrow);
  await recordGap(store, claims, request, refusal.reason);
  return { kind: 'refusal', refusal: { ...refusal, message_id: messageId }, session_id: turn.session_id };
}

/**
 * Counts the refused question as a content gap. The SQL function counts a message id once, so a retried
 * request — which replays the stored refusal — records it again safely: a gap whose first recording failed
 * after the refusal was stored is counted on the retry, and none is counted twice.
 */
function recordGap(store: ChatStore, claims: JwtClaims, request: ReadChatRequest, reason: string): Promise<void> {
  return store.recordContentGap(claims, request.message, reason, request.message_id).catch(rethrow);
}

function replay(turn: TurnState, answer: StoredAnswer, request: ReadChatRequest): Outcome {
  const meta = answer.meta as {
    kind?: string;
    reason?: Refusal['reason'];
    suggestions?: string[];
    actions?: string[];
    closest?: Related[];
    confidence?: Confidence;
    mode?: RetrievalMode;
    warning?: string;
    related?: Related[];
    generated?: Generated;
    context?: AnswerContext;
  };
  if (meta.kind === 'refusal') {
    return {
      kind: 'refusal',
      refusal: {
        type: 'refusal',
        reason: meta.reason ?? 'no_evidence',
        message: answer.content,
        ...storedRefusal(meta),
        message_id: answer.id,
      },
      session_id: turn.session_id,
    };
  }
  return {
    kind: 'answer',
    session_id: turn.session_id,
    message_id: request.message_id,
    answer_message_id: answer.id,
    text: answer.content,
    citations: answer.citations ?? [],
    related: Array.isArray(meta.related) ? meta.related : [],
    confidence: meta.confidence ?? 'low',
    mode: meta.mode ?? 'vector',
    ...(meta.warning ? { warning: meta.warning } : {}),
    ...(meta.generated ? { generated: { text: meta.generated.text, model: meta.generated.model } } : {}),
    ...(meta.context?.used ? { context: contextOf(meta.context) } : {}),
  };
}

/** A stored context as the wire carries it (only its known fields). */
export function contextOf(context: AnswerContext): AnswerContext {
  return { used: context.used === true, ...(typeof context.about === 'string' ? { about: context.about } : {}) };
}

function rethrow(error: unknown): never {
  throw fromStoreError(error);
}
