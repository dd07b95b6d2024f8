/**
 * The webhook's wire contract: what kb-chat POSTs to `KB_WEBHOOK_URL` (or the console's webhook URL). Every
 * body is one JSON event; the `KB-Signature` header signs it (server/webhooks/sign.ts, docs/api.md, "Webhooks").
 * `id` is the same on every retry of one event, so a receiver can drop a delivery it has already handled.
 */
/** The event types: the keys of WebhookEventData, below. */
export type WebhookEventType = keyof WebhookEventData;

/**
 * Every event type, for whatever lists them (the console's settings, the docs check in
 * scripts/docs-truth/check.test.ts). A Record over WebhookEventData's keys: the compiler refuses a missing or an
 * extra name, so the list cannot drift from the types.
 */
const EVENT_NAMES: Record<WebhookEventType, true> = {
  'question.refused': true,
  'answer.rated': true,
  'sync.finished': true,
};
export const WEBHOOK_EVENTS = Object.keys(EVENT_NAMES) as WebhookEventType[];

/** Header carrying `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export const WEBHOOK_SIGNATURE_HEADER = 'KB-Signature';

/** A visitor's question was refused (no evidence in the documents, or an empty knowledge base). */
export interface QuestionRefusedData {
  /** The stored refusal (the assistant message a 👍 / 👎 refers to). */
  message_id: string;
  question_id: string;
  session_id: string;
  /** An opaque id of the visitor (a hash of their user id): the same visitor, never who they are. */
  visitor: string;
  question: string;
  reason: string;
}

/** A visitor rated an answer or a refusal (again: a change of mind is a new event). */
export interface AnswerRatedData {
  message_id: string;
  visitor: string;
  /** 1 (👍) or -1 (👎). */
  rating: 1 | -1;
  comment: string | null;
  rated_at: string;
}

/** An ingestion / sync run of one source ended. */
export interface SyncFinishedData {
  /** The sitemap, URL or folder that was synced. */
  source: string;
  started_at: string;
  finished_at: string;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  /** Pages that failed (each kept its previous version). */
  failed: { source: string; error: string }[];
}

export interface WebhookEventData {
  'question.refused': QuestionRefusedData;
  'answer.rated': AnswerRatedData;
  'sync.finished': SyncFinishedData;
}

export interface WebhookEvent<T extends WebhookEventType = WebhookEventType> {
  /** `evt_<uuid>`: one per event, the same on each retry. */
  id: string;
  type: T;
  /** When the event happened (ISO 8601). */
  created_at: string;
  data: WebhookEventData[T];
}
