/**
 * The `kb-*` events' details: what `<kb-chat>` fires (its `@fires` in kb-chat.component.ts) and what the
 * chat UI dispatches. Types only, in a file of their own so the chat UI names them without importing the element.
 */
import type { Citation, Related } from '../protocol/chat.ts';

export interface KbQuestionDetail {
  message: string;
  messageId: string;
  sessionId?: string;
  /** Sent without an embedding (the model is still loading, or cannot load): the server answers from full-text search. */
  keyword: boolean;
}
export interface KbAnswerDetail {
  /** The question's id. */
  messageId: string;
  /** The stored answer's id: what `kb-feedback` names as `message_id`. */
  answerId?: string;
  sessionId?: string;
  text: string;
  citations: Citation[];
}
export interface KbAnswerWrittenDetail {
  /** The question's id (as in `kb-answer`). */
  messageId: string;
  /** The stored answer's id, which the written version is saved against. */
  answerId: string;
  /** The written answer (Markdown, `[n]` markers validated against the answer's citations). */
  text: string;
  model: string;
  tokens: number;
  /** From the request to the first generated token, prompt processing included. */
  firstTokenMs: number;
  tokensPerSecond: number;
}
export interface KbRefusalDetail {
  message: string;
  suggestions: string[];
  /** What the refusal offers to do (`rephrase`, `contact_support`), never sent as questions. */
  actions: string[];
  /** The closest pages when a passage came near the evidence needed (they may not answer the question). */
  closest: Related[];
  /** The stored refusal's id (absent from older servers). */
  answerId?: string;
}
/** Exactly the body of the `POST /api/feedback` the server stored (snake_case, as on the wire). */
export interface KbFeedbackDetail {
  /** The rated answer or refusal (`KbAnswerDetail.answerId`, `KbRefusalDetail.answerId`). */
  message_id: string;
  /** 1 (👍) or -1 (👎). */
  rating: 1 | -1;
  comment?: string;
}
/** "Contact support" was chosen: what a help desk needs to pick the conversation up. */
export interface KbEscalateDetail {
  /** The question the assistant could not answer. */
  question: string;
  /** The conversation so far, oldest first: the visitor's questions and the assistant's answers or refusals. */
  turns: { role: 'user' | 'assistant'; text: string; refused?: boolean }[];
  /** The page the visitor asked on. */
  pageUrl: string;
  sessionId?: string;
  /** Where the widget will go unless the event is cancelled (absent when no address is set). */
  href?: string;
}
export interface KbErrorDetail {
  code: string;
  message: string;
}

declare global {
  interface GlobalEventHandlersEventMap {
    'kb-open': CustomEvent<void>;
    'kb-close': CustomEvent<void>;
    'kb-question': CustomEvent<KbQuestionDetail>;
    'kb-answer': CustomEvent<KbAnswerDetail>;
    'kb-answer-written': CustomEvent<KbAnswerWrittenDetail>;
    'kb-refusal': CustomEvent<KbRefusalDetail>;
    'kb-error': CustomEvent<KbErrorDetail>;
    'kb-feedback': CustomEvent<KbFeedbackDetail>;
    'kb-escalate': CustomEvent<KbEscalateDetail>;
  }
}
