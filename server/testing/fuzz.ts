// Long file: one generator per endpoint's request shape, shared by the fuzz test and the fuzz benchmark.
/**
 * Property-based fuzzing of every endpoint (fast-check), shared by the seeded CI test (server/fuzz.test.ts)
 * and the long run (`npm run bench -- fuzz`). Requests are generated, not listed: arbitrary JSON values,
 * wrong types, huge and Unicode-edge strings (lone surrogates, RTL marks, zero-width characters, NUL),
 * odd `Content-Type`, `Accept`, `Last-Event-ID` and `Authorization` headers — around bodies that are
 * mostly valid, so the server's deeper paths (answers, replays, conflicts, filters) are reached too.
 *
 * The properties, checked on each response:
 * - never a 5xx;
 * - a 4xx is `{error:{code,message}}` with a known code, and a 400 names the field (`field: reason`);
 * - a 2xx is valid by the wire contract (SSE events, refusal, answer, search results, history, …);
 * - a 4xx writes nothing: sessions, messages, content gaps, users and documents are as before, and the
 *   rate-limit counter too (except a 409, or a feedback 404, counted before the database could tell).
 */
import fc from 'fast-check';
import * as v from 'valibot';
import {
  AnonymousAuthSchema,
  ChatAnswerSchema,
  ChunkSchema,
  GeneratedSchema,
  ClientConfigSchema,
  EMBEDDING_DIMENSIONS,
  ERROR_CODES,
  FeedbackResponseSchema,
  parseChatEvent,
  RefusalSchema,
  SearchResponseSchema,
  SessionDetailSchema,
  SessionListSchema,
} from '../../protocol/index.ts';
import { sign } from 'hono/jwt';
import type { AppDeps } from '../app.ts';
import { issueAccessToken } from '../auth/jwt.ts';
import type { PgliteStore } from '../store/pglite.ts';
import { TEST_SECRET, type TestApi } from './api.ts';

export interface FuzzTarget {
  /** The app's `request` (Hono `app.request`). */
  request(path: string, init: RequestInit): Response | Promise<Response>;
  store: PgliteStore;
  /** A visitor's valid token, an admin's, and tokens that must be refused. */
  tokens: { visitor: string; admin: string; forged: string; expired: string };
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Pieces of text that break naive handling, combined with ordinary words. */
const EDGE_PIECES = [
  '\uD800',
  '\uDFFF',
  '\uD83D', // lone surrogates
  '\u200F',
  '\u202E',
  '\u2067', // RTL mark, RTL override, RTL isolate
  '\u200B',
  '\u2060',
  '\uFEFF', // zero-width space, word joiner, BOM
  '\u0000',
  '\u0007',
  '\u001B[31m',
  '\u2028',
  '\u2029',
  '\u0301\u0301\u0301',
  '🦄',
  '👩‍👩‍👧',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'ß',
  'İ',
  '<|im_start|>',
  '[INST]',
  '<script>alert(1)</script>',
  "'; drop table chat_messages; --",
  '%00',
  '\\u0000',
  'refunds',
  'How do refunds work?',
  'invoices',
  ' ',
  '\n',
  '\t',
];

const edgeString = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...EDGE_PIECES), { maxLength: 12 }).map((parts) => parts.join('')) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom(2000, 2001, 5000, 20_000).map((n) => 'é'.repeat(n)) },
);

/** Any JSON value at all, including deep nesting and big numbers. */
const anyJson = fc.jsonValue({ maxDepth: 4 });

const messageIds = fc.oneof(
  fc.uuid(),
  // A small pool, so generated requests also reuse ids: replays (same message) and conflicts (another).
  fc.constantFrom('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'),
  fc.constantFrom('', '42', 'not-a-uuid', '00000000-0000-0000-0000-00000000000g'),
);

const embedding = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .integer({ min: 0, max: EMBEDDING_DIMENSIONS - 1 })
      .map((i) => Array.from({ length: EMBEDDING_DIMENSIONS }, (_, j) => (j === i ? 1 : 0))),
  },
  { weight: 1, arbitrary: fc.array(fc.double(), { minLength: 0, maxLength: 4 }) },
  {
    weight: 1,
    arbitrary: fc.array(fc.oneof(fc.double(), anyJson), {
      minLength: EMBEDDING_DIMENSIONS,
      maxLength: EMBEDDING_DIMENSIONS,
    }),
  },
  { weight: 1, arbitrary: anyJson },
);

/** A chat body: each field valid, wrong or absent. */
const chatBody = fc.record(
  {
    message: fc.oneof({ weight: 3, arbitrary: edgeString }, { weight: 1, arbitrary: anyJson }),
    message_id: fc.oneof({ weight: 4, arbitrary: messageIds }, { weight: 1, arbitrary: anyJson }),
    session_id: fc.oneof(fc.uuid(), fc.constant('x'), anyJson),
    embedding,
    extra: anyJson,
  },
  { requiredKeys: ['message', 'message_id'] },
);

/** A feedback body: ids of nobody's answer (404) or not ids, ratings and comments valid or not. */
const feedbackBody = fc.record(
  {
    message_id: fc.oneof({ weight: 4, arbitrary: messageIds }, { weight: 1, arbitrary: anyJson }),
    rating: fc.oneof(fc.constantFrom(1, -1, 0, 2, '1', 'up'), anyJson),
    comment: fc.oneof({ weight: 3, arbitrary: edgeString }, { weight: 1, arbitrary: anyJson }),
  },
  { requiredKeys: [] },
);

const searchBody = fc.record(
  {
    query_text: fc.oneof(edgeString, anyJson),
    embedding,
    top_k: fc.oneof(fc.integer({ min: -5, max: 60 }), fc.double(), anyJson),
    mode: fc.oneof(fc.constantFrom('hybrid', 'vector', 'lexical', 'HYBRID', ''), anyJson),
    filters: fc.oneof(
      fc.record(
        {
          document_ids: fc.array(fc.oneof(fc.uuid(), edgeString), { maxLength: 3 }),
          source_types: fc.array(edgeString, { maxLength: 3 }),
          tags: fc.array(edgeString, { maxLength: 3 }),
          languages: fc.array(edgeString, { maxLength: 3 }),
          date_from: fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            edgeString,
          ),
          date_to: fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            edgeString,
          ),
        },
        { requiredKeys: [] },
      ),
      anyJson,
    ),
  },
  { requiredKeys: [] },
);

const threshold = fc.oneof(fc.double(), fc.constantFrom(0, 1, 0.5, -0.01, 1.01, null, '0.5'), anyJson);
/** A settings patch (admins): each field valid, out of bounds, of the wrong type, or absent. */
const settingsBody = fc.record(
  {
    answer_mode: fc.oneof(fc.constantFrom('extractive', 'generative', null, 'poetry'), anyJson),
    evidence_threshold: threshold,
    lexical_threshold: threshold,
    hybrid_threshold: threshold,
    greeting: fc.oneof(
      { weight: 3, arbitrary: edgeString },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: anyJson },
    ),
    refusal_suggestions: fc.oneof(
      { weight: 3, arbitrary: fc.array(edgeString, { maxLength: 7 }) },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: anyJson },
    ),
    extra: anyJson,
  },
  { requiredKeys: [] },
);

const body = (structured: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 6, arbitrary: structured.map((b) => JSON.stringify(b)) },
    { weight: 2, arbitrary: anyJson.map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) }, // not JSON, mostly
    { weight: 1, arbitrary: fc.constant(`{"message":"${'x'.repeat(70_000)}"}`) }, // over the body limit
  );

/** Header values as a browser or a script could send them (ByteStrings without line breaks). */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});

export function requestArbitrary(tokens: FuzzTarget['tokens']): fc.Arbitrary<FuzzRequest> {
  const authorization = fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${tokens.visitor}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${tokens.admin}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `bearer ${tokens.visitor}`,
        `Bearer  ${tokens.visitor}`,
        `Bearer ${tokens.forged}`,
        `Bearer ${tokens.expired}`,
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'Bearer',
        'Bearer ',
        'Basic dXNlcjpwYXNz',
        'Bearer a.b.c',
        `Bearer ${tokens.visitor}x`,
        `Bearer ${'A'.repeat(5000)}`,
      ),
    },
    { weight: 1, arbitrary: headerText },
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded',
    '',
    'application/json; charset=latin1',
  );
  const accept = fc.constantFrom(
    'text/event-stream',
    'application/json',
    'text/event-stream, application/json',
    '*/*',
    'application/json, text/event-stream',
    'text/html',
    '',
  );
  const lastEventId = fc.oneof(
    fc.constant(undefined),
    fc.uuid().map((id) => `${id}:3`),
    fc.constantFrom(
      '00000000-0000-4000-8000-000000000001:1',
      '-1',
      '999999999999999999999',
      'abc',
      ':',
      `x:${'9'.repeat(400)}`,
    ),
    headerText,
  );
  const headers = fc
    .record({ authorization, contentType, accept, lastEventId })
    .map(({ authorization, contentType, accept, lastEventId }) => {
      const h: Record<string, string> = {};
      if (authorization) h.Authorization = authorization;
      if (contentType) h['Content-Type'] = contentType;
      if (accept) h.Accept = accept;
      if (lastEventId !== undefined) h['Last-Event-ID'] = lastEventId;
      return h;
    });
  // Path segments percent-encoded as a browser would (lone surrogates become U+FFFD), or raw and malformed.
  const pathPart = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .oneof(fc.uuid(), edgeString, fc.constantFrom('..', '%', '00000000-0000-4000-8000-000000000001'))
        .map(encodeSegment),
    },
    { weight: 1, arbitrary: fc.constantFrom('%', '%E0%A4%A', '%ZZ', '%00', '..%2F..%2Fetc', '%C0%AF') },
  );
  const endpoint = fc.oneof(
    { weight: 8, arbitrary: body(chatBody).map((b) => ({ method: 'POST', path: '/api/chat', body: b })) },
    { weight: 4, arbitrary: body(searchBody).map((b) => ({ method: 'POST', path: '/api/search', body: b })) },
    { weight: 2, arbitrary: body(feedbackBody).map((b) => ({ method: 'POST', path: '/api/feedback', body: b })) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(fc.integer({ min: -3, max: 300 }).map(String), headerText)
        .map((l) => ({ method: 'GET', path: `/api/sessions?limit=${encodeURIComponent(l)}` })),
    },
    { weight: 2, arbitrary: pathPart.map((id) => ({ method: 'GET', path: `/api/sessions/${id}` })) },
    { weight: 2, arbitrary: pathPart.map((id) => ({ method: 'GET', path: `/api/chunks/${id}` })) },
    {
      weight: 1,
      arbitrary: headerText.map((l) => ({ method: 'GET', path: `/api/admin/gaps?limit=${encodeURIComponent(l)}` })),
    },
    { weight: 2, arbitrary: body(settingsBody).map((b) => ({ method: 'PUT', path: '/api/admin/settings', body: b })) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          pathPart,
          fc.oneof(
            anyJson,
            fc.record(
              { text: fc.oneof(edgeString, anyJson), model: fc.oneof(edgeString, anyJson) },
              { requiredKeys: [] },
            ),
          ),
        )
        .map(([id, b]) => ({ method: 'POST', path: `/api/chat/${id}/generated`, body: JSON.stringify(b) })),
    },
    {
      weight: 1,
      arbitrary: anyJson.map((b) => ({ method: 'POST', path: '/api/auth/anonymous', body: JSON.stringify(b) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          anyJson,
          edgeString.map((token) => ({ refresh_token: token })),
        )
        .map((b) => ({ method: 'POST', path: '/api/auth/refresh', body: JSON.stringify(b) })),
    },
    { weight: 1, arbitrary: fc.constantFrom('/api/health', '/api/config').map((path) => ({ method: 'GET', path })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'POST'),
          fc.constantFrom('/api/chat', '/api/nope', '/api/search/x', '/api/sessions'),
        )
        .map(([method, path]) => ({ method, path })),
    },
  );
  return fc.record({ endpoint, headers }).map(({ endpoint, headers }) => ({
    ...endpoint,
    headers: endpoint.method === 'GET' ? withoutBodyHeaders(headers) : headers,
  }));
}

function encodeSegment(text: string): string {
  return encodeURIComponent(
    text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
  );
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const { 'Content-Type': _, ...rest } = headers;
  return rest;
}

const COUNTED = [
  'chat_sessions',
  'chat_messages',
  'chat_feedback',
  'content_gaps',
  'auth.users',
  'kb_documents',
  'rate_limits',
] as const;

async function rowCounts(store: PgliteStore): Promise<Record<string, number>> {
  // kb_settings has one row: a write shows in its updated_at (kb_set_settings sets it), counted in ms.
  const sql = [
    ...COUNTED.map((t) => `(select count(*)::int from ${t}) as "${t}"`),
    `(select (extract(epoch from updated_at) * 1000)::float8 from kb_settings) as "kb_settings"`,
  ].join(', ');
  const { rows } = await store.db.query<Record<string, number>>(`select ${sql}`);
  return rows[0]!;
}

/** Sends one request; returns its status and what is wrong with the answer (null: nothing). */
export async function checkRequest(
  target: FuzzTarget,
  req: FuzzRequest,
): Promise<{ status: number; problem: string | null }> {
  const before = await rowCounts(target.store);
  const res = await target.request(req.path, {
    method: req.method,
    headers: req.headers,
    ...(req.body !== undefined ? { body: req.body } : {}),
  });
  return { status: res.status, problem: await responseProblem(target, req, res, before) };
}

async function responseProblem(
  target: FuzzTarget,
  req: FuzzRequest,
  res: Response,
  before: Record<string, number>,
): Promise<string | null> {
  const text = await res.text();
  const where = `${req.method} ${req.path.slice(0, 80)} → ${res.status}`;
  if (res.status >= 500) return `${where}: a ${res.status}: ${text.slice(0, 300)}`;
  if (res.status >= 400) {
    const problem = errorBodyProblem(res.status, text);
    if (problem) return `${where}: ${problem}`;
    const after = await rowCounts(target.store);
    // Counted before the database could tell: a 409 (a reused message id) and a feedback 404 (not one's answer).
    // And every admin request: the console's rate limit counts before the body is read (an admin's budget).
    const countedFirst =
      res.status === 409 ||
      (res.status === 404 && req.path === '/api/feedback') ||
      (res.status === 400 && req.path.startsWith('/api/admin/'));
    const changed = Object.keys(after).filter((t) => after[t] !== before[t] && !(t === 'rate_limits' && countedFirst));
    if (changed.length)
      return `${where}: a ${res.status} wrote rows (${changed.map((t) => `${t} ${before[t]} → ${after[t]}`).join(', ')})`;
    return null;
  }
  const problem = successProblem(req, res, text);
  return problem ? `${where}: ${problem}` : null;
}

function errorBodyProblem(status: number, text: string): string | null {
  let body: { error?: { code?: unknown; message?: unknown } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return `not a JSON error body: ${text.slice(0, 120)}`;
  }
  const { code, message } = body.error ?? {};
  if (typeof code !== 'string' || !(ERROR_CODES as readonly string[]).includes(code))
    return `unknown error code ${JSON.stringify(code)}`;
  if (typeof message !== 'string' || !message) return 'no error message';
  // A 400 says which field is wrong, as `field: reason` (`body` when the body itself is).
  if (status === 400 && !/^[A-Za-z_][\w.]*: \S/.test(message)) return `a 400 that names no field: "${message}"`;
  return null;
}

function successProblem(req: FuzzRequest, res: Response, text: string): string | null {
  const json = () => JSON.parse(text) as unknown;
  const must = (schema: v.GenericSchema, value: unknown) => {
    const parsed = v.safeParse(schema, value);
    return parsed.success ? null : `invalid body: ${parsed.issues[0]?.message} (${text.slice(0, 120)})`;
  };
  const path = req.path.split('?')[0]!;
  try {
    if (path === '/api/chat') {
      if (res.headers.get('content-type')?.startsWith('text/event-stream')) return sseProblem(text);
      const body = json() as { type?: string };
      return must(body.type === 'refusal' ? RefusalSchema : ChatAnswerSchema, body);
    }
    if (path === '/api/search') return must(SearchResponseSchema, json());
    if (path === '/api/feedback') return must(FeedbackResponseSchema, json());
    if (path === '/api/sessions') return must(SessionListSchema, json());
    if (path.startsWith('/api/sessions/')) return must(SessionDetailSchema, json());
    if (path.startsWith('/api/chunks/')) return must(ChunkSchema, json());
    if (path === '/api/auth/anonymous' || path === '/api/auth/refresh') return must(AnonymousAuthSchema, json());
    if (path === '/api/config') return must(ClientConfigSchema, json());
    if (path === '/api/health') return (json() as { status?: string }).status === 'ok' ? null : 'health not ok';
    if (/^\/api\/chat\/[^/]+\/generated$/.test(path)) return must(GeneratedSchema, json());
    if (path === '/api/admin/gaps') return Array.isArray((json() as { gaps?: unknown }).gaps) ? null : 'no gaps list';
    if (path === '/api/admin/settings') return settingsProblem(json());
    if (req.method === 'OPTIONS') return null;
    return `unexpected success ${res.status}`;
  } catch (error) {
    return `unreadable body (${String(error)}): ${text.slice(0, 120)}`;
  }
}

/** A settings answer: every value in effect within its bounds, with its source. */
function settingsProblem(body: unknown): string | null {
  const s = body as Record<string, unknown>;
  for (const name of ['evidence_threshold', 'lexical_threshold', 'hybrid_threshold']) {
    const value = s[name];
    if (typeof value !== 'number' || !(value >= 0 && value <= 1)) return `${name} out of bounds: ${String(value)}`;
  }
  const suggestions = s.refusal_suggestions;
  if (
    !Array.isArray(suggestions) ||
    suggestions.length > 5 ||
    suggestions.some((x) => typeof x !== 'string' || x.trim() === '' || x.length > 120)
  )
    return 'bad refusal_suggestions';
  if (s.greeting !== null && (typeof s.greeting !== 'string' || s.greeting.trim() === '' || s.greeting.length > 500))
    return 'bad greeting';
  for (const name of [
    'answer_mode',
    'evidence_threshold',
    'lexical_threshold',
    'hybrid_threshold',
    'greeting',
    'refusal_suggestions',
  ]) {
    if (s[`${name}_source`] !== 'admin' && s[`${name}_source`] !== 'server') return `no ${name}_source`;
  }
  return null;
}

/** Every event valid by the wire contract; the stream ends with `answer_end` (replays: after Last-Event-ID). */
function sseProblem(text: string): string | null {
  const names: string[] = [];
  for (const block of text.split(/\n\n/)) {
    const event = /^event: ?(.*)$/m.exec(block)?.[1];
    const data = /^data: ?(.*)$/m.exec(block)?.[1];
    if (!event || data === undefined) continue;
    try {
      parseChatEvent(event, data);
    } catch (error) {
      return `invalid ${event} event: ${String(error)}`;
    }
    names.push(event);
  }
  if (names.includes('error')) return `an in-band error: ${text.slice(-200)}`;
  if (names.at(-1) !== 'answer_end') return `the stream ended with ${names.at(-1) ?? 'nothing'}`;
  return null;
}

/** The app of `api` with a visitor's token, an admin's, one signed with another secret and an expired one. */
export async function createFuzzTarget(api: TestApi): Promise<FuzzTarget> {
  const { token: visitor, userId } = await api.signIn();
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: userId, role: 'authenticated', aud: 'authenticated' };
  return {
    request: (path, init) => api.app.request(path, init),
    store: api.store,
    tokens: {
      visitor,
      admin: await sign({ ...claims, app_metadata: { role: 'admin' }, exp: now + 3600 }, TEST_SECRET, 'HS256'),
      forged: await issueAccessToken(userId, 'not-the-secret-not-the-secret-0123'),
      expired: await issueAccessToken(userId, TEST_SECRET, now - 8 * 24 * 3600),
    },
  };
}

/** The app every fuzz run uses: answers stream without pauses, and the rate limit is out of the way. */
export const FUZZ_APP_OVERRIDES: Partial<AppDeps> = {
  rateLimit: { limit: 1_000_000, windowSeconds: 3600 },
  retrieval: { mode: 'hybrid' },
  streaming: { deltaDelayMs: 0 },
};

export interface FuzzRun {
  runs: number;
  seed: number;
  statuses: Record<string, number>;
}

/** Runs the property; throws (fast-check's report, with the seed and the shrunk request) on a failure. */
export async function fuzzApi(
  target: FuzzTarget,
  options: { seed: number; numRuns: number; timeLimitMs?: number },
): Promise<FuzzRun> {
  const statuses: Record<string, number> = {};
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(requestArbitrary(target.tokens), async (req) => {
      runs += 1;
      const { status, problem } = await checkRequest(target, req);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (problem) throw new Error(problem);
    }),
    {
      seed: options.seed,
      numRuns: options.numRuns,
      ...(options.timeLimitMs ? { interruptAfterTimeLimit: options.timeLimitMs, markInterruptAsFailure: false } : {}),
    },
  );
  return { runs, seed: options.seed, statuses };
}
