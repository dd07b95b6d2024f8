/**
 * The wire contract for `POST /api/chat`: the request body, the SSE events of a streamed answer, and the
 * JSON refusal. Imported by the widget, the server and the scripts so that every side validates the same
 * shapes.
 */
import * as v from 'valibot';
import { AnswerContextSchema } from './context.ts';

/** all-MiniLM-L6-v2 produces 384-dimensional sentence vectors; the database column is `vector(384)`. */
export const EMBEDDING_DIMENSIONS = 384;
export const MESSAGE_MAX_CHARS = 2000;

const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));

export const EmbeddingSchema = v.pipe(
  v.array(v.pipe(v.number('must be a number'), v.finite('must be finite'))),
  v.length(EMBEDDING_DIMENSIONS, `must have exactly ${EMBEDDING_DIMENSIONS} numbers`),
);

export const ChatRequestSchema = v.object({
  /** The question embedded in the browser. Without it the server answers from full-text search (keyword mode). */
  embedding: v.optional(EmbeddingSchema),
  message: v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(MESSAGE_MAX_CHARS, `must be at most ${MESSAGE_MAX_CHARS} characters`),
  ),
  session_id: v.optional(Uuid),
  /** Client-generated id of the user's message; it is the primary key of that message, so a retry with the same id replays the stored answer. */
  message_id: Uuid,
  /**
   * `false`: answer the message as a new question, without the conversation ("Ask as a new question").
   * Absent or `true`: a follow-up (protocol/context.ts) is answered in the context of the turn before it.
   */
  context: v.optional(v.boolean()),
});
export type ChatRequest = v.InferOutput<typeof ChatRequestSchema>;

/**
 * A chunk that qualified as evidence but that the answer does not quote: offered under a collapsed
 * "Related" list, neither numbered nor counted as a source.
 */
export const RelatedSchema = v.object({
  chunk_id: v.string(),
  document_id: v.string(),
  title: v.string(),
  page: v.nullable(v.number()),
  section: v.nullable(v.string()),
  url: v.nullable(v.string()),
});
export type Related = v.InferOutput<typeof RelatedSchema>;

/** One source an answer is grounded in: where it is (as a related source) plus its number and evidence. */
export const CitationSchema = v.object({
  /** The number the answer text uses in its `[n]` markers. */
  n: v.number(),
  ...RelatedSchema.entries,
  similarity: v.number(),
  /** The start of the cited passage (plain text, ≤ 300 characters): hover previews and text-fragment links. */
  excerpt: v.optional(v.string()),
  /** Where the passage sits in the source document's text, when the ingester knows. */
  char_start: v.optional(v.number()),
  char_end: v.optional(v.number()),
});
export type Citation = v.InferOutput<typeof CitationSchema>;

/** How sure the retrieval is, from configurable thresholds on the best chunk's score. */
export const ConfidenceSchema = v.picklist(['high', 'medium', 'low']);
export type Confidence = v.InferOutput<typeof ConfidenceSchema>;
/** `vector` (cosine), `lexical` (full-text) or `hybrid` (both, fused). */
export const RetrievalModeSchema = v.picklist(['hybrid', 'vector', 'lexical']);
export type RetrievalMode = v.InferOutput<typeof RetrievalModeSchema>;

export const AnswerStartSchema = v.object({
  session_id: Uuid,
  message_id: Uuid,
  confidence: v.optional(ConfidenceSchema),
  mode: v.optional(RetrievalModeSchema),
  /** E.g. the question was longer than the model reads and was truncated. */
  warning: v.optional(v.string()),
  /** Present when the question was read as a follow-up: `used` and what it was taken to be about. */
  context: v.optional(AnswerContextSchema),
});
export const AnswerDeltaSchema = v.object({ text: v.string() });
/**
 * Generative mode: the text of a cited source, for the widget's on-device generator. Bounded by the
 * server (PASSAGE_MAX_CHARS each); numbered like the citation it belongs to.
 */
export const PassageSchema = v.object({ n: v.number(), text: v.string() });
export type Passage = v.InferOutput<typeof PassageSchema>;
/** A passage sent to the generator is at most this long (the start of the chunk: where the extract begins). */
export const PASSAGE_MAX_CHARS = 1500;

/** A written (generated) answer stored against an extractive one: its text and the model that wrote it. */
export const GeneratedSchema = v.object({ text: v.string(), model: v.string() });
export type Generated = v.InferOutput<typeof GeneratedSchema>;
export const GENERATED_MAX_CHARS = 8000;

/**
 * `POST /api/chat/<answer message id>/generated`: the widget stores the answer its model wrote, once per
 * answer (the first one stays). Its `[n]` markers must be the answer's own citations.
 */
export const GeneratedRequestSchema = v.object({
  text: v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(GENERATED_MAX_CHARS, `must be at most ${GENERATED_MAX_CHARS} characters`),
  ),
  model: v.pipe(
    v.string('must be a string'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(200, 'must be at most 200 characters'),
  ),
});
export type GeneratedRequest = v.InferOutput<typeof GeneratedRequestSchema>;
export const generatedPath = (answerMessageId: string) => `/api/chat/${encodeURIComponent(answerMessageId)}/generated`;

/**
 * `citations`: exactly the sources the answer quotes, numbered 1..N in the order they first appear in it.
 * In generative mode `passages` carries their text for the widget's generator; `generated` is a written
 * answer already stored for this answer (a replay), which the widget shows instead of generating again.
 */
export const SourcesSchema = v.object({
  citations: v.array(CitationSchema),
  related: v.optional(v.array(RelatedSchema)),
  passages: v.optional(v.array(PassageSchema)),
  generated: v.optional(GeneratedSchema),
});
/** `message_id` here is the id of the stored assistant message. */
export const AnswerEndSchema = v.object({ message_id: Uuid });
export const StreamErrorSchema = v.object({ code: v.string(), message: v.string() });

/** SSE event names and the schema of each event's `data` (JSON). `error` is terminal, `answer_end` too. */
export const ChatEventSchemas = {
  answer_start: AnswerStartSchema,
  answer_delta: AnswerDeltaSchema,
  sources: SourcesSchema,
  answer_end: AnswerEndSchema,
  error: StreamErrorSchema,
} as const;
export type ChatEventName = keyof typeof ChatEventSchemas;
export type ChatEvent = {
  [K in ChatEventName]: { event: K; data: v.InferOutput<(typeof ChatEventSchemas)[K]> };
}[ChatEventName];

/** Parse one SSE message (`event:` name and `data:` text) into a typed event; throws on anything else. */
export function parseChatEvent(event: string, data: string): ChatEvent {
  if (!(event in ChatEventSchemas)) throw new Error(`unknown event "${event}"`);
  const name = event as ChatEventName;
  return { event: name, data: v.parse(ChatEventSchemas[name], JSON.parse(data)) } as ChatEvent;
}

/**
 * Sent as JSON (HTTP 200, `Content-Type: application/json`) instead of a stream when the knowledge base has
 * no evidence good enough to answer from: nothing to stream, so one plain JSON body.
 */
export const RefusalSchema = v.object({
  type: v.literal('refusal'),
  reason: v.picklist(['no_evidence', 'empty_kb']),
  message: v.string(),
  /** Questions an admin offers under a refusal (`refusal_suggestions`): a click sends one as a question. */
  suggestions: v.array(v.string()),
  /**
   * What the widget offers to do instead, never sent as a question (`REFUSAL_ACTIONS`): `rephrase` puts the
   * question back into the box, `contact_support` opens the owner's support address. Strings, so a widget
   * ignores an action it does not know. Optional: older servers sent these as suggestions.
   */
  actions: v.optional(v.array(v.string())),
  /**
   * The closest pages when the best passage came close to the evidence gate (up to 3, one per page, best
   * first): offered as "Closest pages (they may not answer this)", never as an answer. Absent when nothing
   * came close (an off-topic question).
   */
  closest: v.optional(v.array(RelatedSchema)),
  /** The stored refusal (an assistant message), so it can be rated (`POST /api/feedback`). Optional: older servers omit it. */
  message_id: v.optional(Uuid),
});
export type Refusal = v.InferOutput<typeof RefusalSchema>;

/** The actions a refusal may offer (`Refusal.actions`). */
export const REFUSAL_ACTIONS = ['rephrase', 'contact_support'] as const;
export type RefusalAction = (typeof REFUSAL_ACTIONS)[number];
/** Closest pages listed under a refusal at most. */
export const CLOSEST_PAGES_MAX = 3;

/**
 * `POST /api/chat` with `Accept: application/json`: the whole answer in one body, for callers that cannot read a stream.
 */
export const ChatAnswerSchema = v.object({
  type: v.literal('answer'),
  session_id: Uuid,
  message_id: Uuid,
  answer_message_id: Uuid,
  text: v.string(),
  citations: v.array(CitationSchema),
  related: v.optional(v.array(RelatedSchema)),
  confidence: ConfidenceSchema,
  mode: RetrievalModeSchema,
  warning: v.optional(v.string()),
  passages: v.optional(v.array(PassageSchema)),
  generated: v.optional(GeneratedSchema),
  /** As in `answer_start`: present when the question was read as a follow-up. */
  context: v.optional(AnswerContextSchema),
  event_count: v.number(),
});
export type ChatAnswer = v.InferOutput<typeof ChatAnswerSchema>;
