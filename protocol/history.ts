/** Chat history endpoints: the visitor's own sessions, newest first, and their messages. */
import * as v from 'valibot';
import { CitationSchema, GeneratedSchema, RelatedSchema } from './chat.ts';
import { AnswerContextSchema } from './context.ts';
import { FeedbackRatingSchema } from './feedback.ts';

export const SessionSummarySchema = v.object({
  id: v.string(),
  title: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
});
export type SessionSummary = v.InferOutput<typeof SessionSummarySchema>;

/** `GET /api/sessions` */
export const SessionListSchema = v.object({ sessions: v.array(SessionSummarySchema) });
export type SessionList = v.InferOutput<typeof SessionListSchema>;

export const StoredMessageSchema = v.object({
  id: v.string(),
  role: v.picklist(['user', 'assistant']),
  content: v.string(),
  /** Assistant answers only. */
  citations: v.nullable(v.array(CitationSchema)),
  /** Assistant answers: qualifying sources the answer does not quote (see chat.ts RelatedSchema). */
  related: v.optional(v.array(RelatedSchema)),
  /** Set when the assistant message is a refusal. */
  refusal: v.optional(
    v.object({
      reason: v.string(),
      suggestions: v.array(v.string()),
      /** As in `Refusal` (chat.ts): what the widget offers to do, and the closest pages, when there were any. */
      actions: v.optional(v.array(v.string())),
      closest: v.optional(v.array(RelatedSchema)),
    }),
  ),
  /** Generative mode: the answer the visitor's model wrote from the cited passages (`content` stays the quoted one). */
  generated: v.optional(GeneratedSchema),
  /** Assistant messages the visitor rated: their rating (1 or -1), as `POST /api/feedback` stored it. */
  feedback: v.optional(FeedbackRatingSchema),
  /** Assistant answers to a follow-up: the context it was answered in, as `answer_start` sent it. */
  context: v.optional(AnswerContextSchema),
  created_at: v.string(),
});
export type StoredMessage = v.InferOutput<typeof StoredMessageSchema>;

/** `GET /api/sessions/:id` — messages oldest first. */
export const SessionDetailSchema = v.object({
  session: SessionSummarySchema,
  messages: v.array(StoredMessageSchema),
});
export type SessionDetail = v.InferOutput<typeof SessionDetailSchema>;
