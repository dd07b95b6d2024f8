/**
 * `POST /api/feedback`: a visitor's 👍 / 👎 on one of their answers or refusals, with an optional
 * short comment. One rating per answer: a second request replaces the first (a change of mind).
 *
 * The rating is `1` (👍) or `-1` (👎), the numbers the database stores (`chat_feedback.rating`), so a
 * console sums or averages them as they are; a word pair ('up'/'down') would only be mapped back and forth.
 */
import * as v from 'valibot';

export const FEEDBACK_COMMENT_MAX_CHARS = 1000;

export const FeedbackRatingSchema = v.picklist([1, -1], 'must be 1 (helpful) or -1 (not helpful)');
export type FeedbackRating = v.InferOutput<typeof FeedbackRatingSchema>;

export const FeedbackRequestSchema = v.object({
  /** The stored assistant message: `answer_end.message_id`, a refusal's `message_id`, a history message's `id`. */
  message_id: v.pipe(v.string('must be a string'), v.uuid('must be a UUID')),
  rating: FeedbackRatingSchema,
  /** What was wrong (the widget offers it on 👎). Trimmed; absent clears an earlier comment. */
  comment: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.trim(),
      v.minLength(1, 'must not be empty'),
      v.maxLength(FEEDBACK_COMMENT_MAX_CHARS, `must be at most ${FEEDBACK_COMMENT_MAX_CHARS} characters`),
    ),
  ),
});
export type FeedbackRequest = v.InferOutput<typeof FeedbackRequestSchema>;

/** `200`: the rating as stored now. */
export const FeedbackResponseSchema = v.object({
  message_id: v.string(),
  rating: FeedbackRatingSchema,
  comment: v.nullable(v.string()),
  updated_at: v.string(),
});
export type FeedbackResponse = v.InferOutput<typeof FeedbackResponseSchema>;
