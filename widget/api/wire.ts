/**
 * Run-time checks of what the API sends, against the shapes of the shared wire contract (`protocol/`,
 * imported as types only). Hand-written guards instead of the protocol's valibot schemas keep ~3 KB gz out of
 * the chat UI bundle; unknown fields are kept (a newer server may add e.g. `excerpt` to citations).
 */
import type {
  AnonymousAuth,
  ChatEventName,
  Citation,
  ClientConfig,
  Refusal,
  SessionDetail,
  SessionList,
  StoredMessage,
} from '../../protocol/index.ts';

/** A citation as the widget uses it: the contract's fields plus the optional passage details. */
export type WidgetCitation = Citation & { excerpt?: string; char_start?: number; char_end?: number };

/** `GET /api/chunks/:id` */
export interface ChunkDetail {
  chunk_id: string;
  content: string;
  title: string;
  section: string | null;
  page: number | null;
  url: string | null;
}

type Json = Record<string, unknown>;
const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
const isString = (x: unknown): x is string => typeof x === 'string';
const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isNullable = <T>(guard: (x: unknown) => x is T) => (x: unknown): x is T | null => x === null || x === undefined || guard(x);

export class WireError extends Error {}

function check<T>(ok: boolean, value: unknown, what: string): T {
  if (!ok) throw new WireError(`unexpected ${what}`);
  return value as T;
}

function isCitation(x: unknown): x is WidgetCitation {
  return (
    isObject(x) &&
    isNumber(x.n) &&
    isString(x.chunk_id) &&
    isString(x.title) &&
    isNullable(isNumber)(x.page) &&
    isNullable(isString)(x.section) &&
    isNullable(isString)(x.url) &&
    (x.excerpt === undefined || isString(x.excerpt))
  );
}

export const parseAuth = (x: unknown) =>
  check<AnonymousAuth>(isObject(x) && isString(x.access_token) && isNumber(x.expires_in), x, 'sign-in response');

export const parseConfig = (x: unknown) =>
  check<ClientConfig>(isObject(x) && isString(x.embed_model) && isString(x.models_url) && isString(x.ort_wasm_url), x, 'config');

export const parseRefusal = (x: unknown): Refusal | undefined =>
  isObject(x) && x.type === 'refusal' && isString(x.message) && Array.isArray(x.suggestions) && x.suggestions.every(isString)
    ? (x as Refusal)
    : undefined;

export const parseSessions = (x: unknown) =>
  check<SessionList>(
    isObject(x) && Array.isArray(x.sessions) && x.sessions.every((s) => isObject(s) && isString(s.id) && isString(s.title)),
    x,
    'session list',
  );

function isStoredMessage(x: unknown): x is StoredMessage {
  return (
    isObject(x) &&
    isString(x.id) &&
    (x.role === 'user' || x.role === 'assistant') &&
    isString(x.content) &&
    (x.citations == null || (Array.isArray(x.citations) && x.citations.every(isCitation)))
  );
}

export const parseSession = (x: unknown) =>
  check<SessionDetail>(isObject(x) && isObject(x.session) && Array.isArray(x.messages) && x.messages.every(isStoredMessage), x, 'session');

export const parseChunk = (x: unknown) =>
  check<ChunkDetail>(isObject(x) && isString(x.content) && isString(x.title), x, 'chunk');

/** The SSE events of `POST /api/chat`, typed by name (see protocol/chat.ts). */
export type WireEvent =
  | { event: 'answer_start'; data: { session_id: string; message_id: string; mode?: string; confidence?: string; warning?: string } }
  | { event: 'answer_delta'; data: { text: string } }
  | { event: 'sources'; data: { citations: WidgetCitation[] } }
  | { event: 'answer_end'; data: { message_id: string } }
  | { event: 'error'; data: { code: string; message: string } };

const EVENT_CHECKS: Record<ChatEventName, (d: Json) => boolean> = {
  answer_start: (d) => isString(d.session_id),
  answer_delta: (d) => isString(d.text),
  sources: (d) => Array.isArray(d.citations) && d.citations.every(isCitation),
  answer_end: (d) => isString(d.message_id),
  error: (d) => isString(d.code),
};

export function parseWireEvent(event: string, data: string): WireEvent {
  const checkData = EVENT_CHECKS[event as ChatEventName];
  if (!checkData) throw new WireError(`unknown event "${event}"`);
  const parsed: unknown = JSON.parse(data);
  return check<WireEvent>(isObject(parsed) && checkData(parsed), { event, data: parsed }, `${event} event`);
}
