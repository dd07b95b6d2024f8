/**
 * The two MCP tools. `search_docs` is `POST /api/search` without an embedding; `ask_docs` is one turn of
 * `POST /api/chat` (server/chat/answer.ts: the same retrieval, the same evidence gate, the same extraction,
 * the question and its answer or refusal stored the same way) with the answer's channel set to `mcp`.
 * MCP clients send text only, so both search by keywords (lexical mode), as the widget does while its
 * embedding model is still loading.
 */
import * as v from 'valibot';
import { MESSAGE_MAX_CHARS, SearchFiltersSchema } from '../../protocol/index.ts';
import { answerTurn, storeAnswer, type AnswerTurnOptions } from '../chat/answer.ts';
import { chatRequestOf, cleanMessage } from '../chat/request.ts';
import { refusedEvent } from '../chat/route.ts';
import { parseBody } from '../http/body.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import { search, type RetrievalOptions } from '../retrieval/index.ts';
import type { ChatStore, JwtClaims } from '../store/types.ts';
import type { WaitUntil, Webhooks } from '../webhooks/dispatcher.ts';
import { formatAnswer, formatRefusal, formatSearch } from './format.ts';

export const SEARCH_MAX_RESULTS = 20;

const FILTERS_JSON_SCHEMA = {
  type: 'object',
  description: 'Optional filters, as in POST /api/search.',
  properties: {
    tags: { type: 'array', items: { type: 'string' } },
    source_types: { type: 'array', items: { type: 'string' } },
    languages: { type: 'array', items: { type: 'string' } },
    document_ids: { type: 'array', items: { type: 'string', format: 'uuid' } },
    date_from: { type: 'string', format: 'date-time' },
    date_to: { type: 'string', format: 'date-time' },
  },
  additionalProperties: false,
} as const;

/** What `tools/list` returns. */
export const TOOLS = [
  {
    name: 'search_docs',
    title: 'Search the documentation',
    description:
      'Search this documentation by keywords. Returns the best passages verbatim, each with its page title, section path and a link to the passage. Quote passages with their link.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: MESSAGE_MAX_CHARS, description: 'Keywords or a question.' },
        top_k: { type: 'integer', minimum: 1, maximum: SEARCH_MAX_RESULTS, default: 5 },
        filters: FILTERS_JSON_SCHEMA,
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'ask_docs',
    title: 'Ask the documentation',
    description:
      'Ask a question. Returns an answer quoted from this documentation with [n] citations and the numbered sources, or, when the documentation does not answer it, a refusal with its reason: then say the documentation does not cover it.',
    inputSchema: {
      type: 'object',
      properties: {
        question: { type: 'string', minLength: 1, maxLength: MESSAGE_MAX_CHARS, description: 'One question.' },
      },
      required: ['question'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, openWorldHint: false },
  },
] as const;

const SearchArgs = v.object({
  query: v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(MESSAGE_MAX_CHARS, `must be at most ${MESSAGE_MAX_CHARS} characters`),
  ),
  top_k: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(SEARCH_MAX_RESULTS)), 5),
  filters: v.optional(SearchFiltersSchema, {}),
});
const AskArgs = v.object({ question: v.string('must be a string') });

export interface ToolContext {
  store: ChatStore;
  retrieval: RetrievalOptions;
  settings?: AnswerTurnOptions['settings'];
  /** The user this client's calls run as (./visitors.ts); throws a tool error when it may not get one. */
  claims: () => Promise<JwtClaims>;
  /** The server's origin, for relative page URLs. */
  origin: string;
  /** `question.refused` goes out here for a refused ask_docs, as for a widget question; none when unset. */
  webhooks?: Webhooks;
  waitUntil?: WaitUntil;
}

export interface ToolResult {
  content: { type: 'text'; text: string }[];
  isError?: boolean;
  [key: string]: unknown;
}

/** A failure the assistant should read (bad arguments, rate limit…): MCP's tool error, not a protocol error. */
export class ToolError extends Error {}

const text = (body: string, isError = false): ToolResult => ({
  content: [{ type: 'text', text: body }],
  ...(isError ? { isError: true } : {}),
});

export async function callTool(name: string, args: unknown, context: ToolContext): Promise<ToolResult> {
  try {
    if (name === 'search_docs') return text(await searchDocs(args, context));
    if (name === 'ask_docs') return await askDocs(args, context);
    return text(`Unknown tool "${name}". The tools are search_docs and ask_docs.`, true);
  } catch (error) {
    if (error instanceof ToolError) return text(error.message, true);
    // A 4xx is the caller's to fix and says how; anything else is the server's and is not detailed.
    if (error instanceof AppError && error.status < 500) return text(error.message, true);
    throw error;
  }
}

async function searchDocs(args: unknown, context: ToolContext): Promise<string> {
  const { query, top_k, filters } = parseBody(SearchArgs, args ?? {});
  const question = cleanMessage(query).trim();
  if (!question) throw new ToolError('query: must contain words to search for');
  const { results } = await search(context.store, {
    claims: await context.claims(),
    question,
    embedding: null,
    topK: top_k,
    filters,
  }).catch((error) => {
    throw fromStoreError(error);
  });
  return formatSearch(question, results, context.origin);
}

async function askDocs(args: unknown, context: ToolContext): Promise<ToolResult> {
  const { question } = parseBody(AskArgs, args ?? {});
  // As a widget question that starts a conversation: the same cleaning, bounds and error messages.
  const request = chatRequestOf({ message: question, message_id: crypto.randomUUID(), context: false });
  const claims = await context.claims();
  const outcome = await answerTurn(context.store, claims, request, context.retrieval, {
    settings: context.settings,
    channel: 'mcp',
  });
  if (outcome.kind === 'refusal') {
    // Off the answer's path, with the refusal's id as the event's, as the chat route sends it.
    if (context.webhooks && outcome.refusal.message_id) {
      context.webhooks.emit(
        'question.refused',
        refusedEvent(claims, request.message_id, request.message, outcome.session_id, outcome.refusal),
        { id: `evt_${outcome.refusal.message_id}`, waitUntil: context.waitUntil },
      );
    }
    return text(formatRefusal(outcome.refusal, context.origin));
  }
  await storeAnswer(context.store, claims, outcome, 'mcp').catch((error) => {
    throw fromStoreError(error);
  });
  return text(formatAnswer(outcome, context.origin));
}
