/**
 * Reading a chat request strictly: JSON, the wire schema, and a message cleaned of what must never reach
 * retrieval or history — control characters and chat-template tokens (`<|im_start|>`, `[INST]`, …) that
 * exist only to confuse language models downstream.
 */
import { ChatRequestSchema, type ChatRequest } from '../../protocol/index.ts';
import { parseBody, readJson } from '../http/body.ts';

// C0/C1 control characters and the Unicode line/paragraph separators; tab and newline are text.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029]/g;
// A UTF-16 surrogate without its pair is not a character: it cannot be encoded as UTF-8, and Postgres rejects
// the bytes (found by `npm run bench -- fuzz`). Replaced as TextEncoder replaces it, by U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const TEMPLATE_TOKENS = /<\|[^|<>\s]{1,40}\|>|\[\/?INST\]|<<\/?SYS>>|<\/?s>|<\/?(?:system|assistant|user)>/gi;

/** all-MiniLM-L6-v2 reads at most 256 word pieces, two of them [CLS] and [SEP]. */
export const MODEL_MAX_WORD_PIECES = 256;

/** Text Postgres can store and a reader can see: lone surrogates replaced, control characters removed. */
export function cleanText(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD').replace(CONTROL, '');
}

export function cleanMessage(message: string): string {
  return cleanText(message)
    .replace(TEMPLATE_TOKENS, ' ')
    .replace(/[ \t]{2,}/g, ' ');
}

/**
 * An estimate of the model's word pieces, without shipping its tokenizer to every runtime: a word piece per
 * punctuation mark, per short word, and per ~4 letters of a longer word (how WordPiece splits rare words).
 * It errs on the high side, so a warning may come a little early but never late.
 */
export function estimateWordPieces(text: string): number {
  let pieces = 2;
  for (const [token] of text.matchAll(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)) {
    pieces += token.length <= 6 ? 1 : Math.ceil(token.length / 4);
  }
  return pieces;
}

/** The longest prefix (whole words) that fits the model, and whether anything was cut. */
export function truncateForModel(text: string): { text: string; truncated: boolean } {
  if (estimateWordPieces(text) <= MODEL_MAX_WORD_PIECES) return { text, truncated: false };
  const words = text.split(/(\s+)/);
  let kept = '';
  for (const word of words) {
    if (estimateWordPieces(kept + word) > MODEL_MAX_WORD_PIECES) break;
    kept += word;
  }
  return { text: kept.trim(), truncated: true };
}

export const TRUNCATION_WARNING =
  'Your question is longer than the model reads; only its beginning was used to search the knowledge base.';

export interface ReadChatRequest extends ChatRequest {
  /** The part of the message used for retrieval (the whole message unless it was too long). */
  query: string;
  warning?: string;
}

export async function readChatRequest(request: Request): Promise<ReadChatRequest> {
  return chatRequestOf(await readJson(request));
}

/** A parsed body as a chat request: the message cleaned, then validated (400 `invalid_request` if not). */
export function chatRequestOf(body: unknown): ReadChatRequest {
  if (body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string') {
    (body as { message: string }).message = cleanMessage((body as { message: string }).message);
  }
  const chat = parseBody(ChatRequestSchema, body);
  const { text, truncated } = truncateForModel(chat.message);
  return { ...chat, query: text, ...(truncated ? { warning: TRUNCATION_WARNING } : {}) };
}
