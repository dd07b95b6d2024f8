// Long file: the allow-lists, Alice's world and BOUNDED (one check per callable function) are shared by the same tests on both attack paths.
/**
 * The database as an attacker sees it. On Supabase, anyone with the project's anon key (it ships
 * in every page) can call every function and table of the exposed schema through PostgREST, with no token
 * or with the token of an anonymous user they signed up themselves — the Hono API's validation and rate
 * limits are not in front of those calls. This file makes those calls:
 *
 * - every function and every table, the lists read from pg_proc / pg_class (a new function or table is
 *   covered without editing this file): refused unless it is one of the few an attacker may call;
 * - each function an attacker may call, with the arguments an attacker would send (huge counts, negative
 *   thresholds, megabytes of text, somebody else's ids, invented buckets and reasons): bounded as designed;
 * - every function that stores the server's word (an answer, a content gap's count, a written answer), with
 *   forged meta and citations and without the server's answer write key, or with a wrong one: refused,
 *   nothing stored. Their bounds are then checked as the server calls them, with the key, for Mallory.
 *
 * Two paths over the same database (PGlite here; PostgreSQL in attacker.pg.test.ts): PostgREST over HTTP (rpc-server.ts: apikey, JWT, role, RLS), and
 * the embedded database itself, running each call as PostgREST does (claims set, `set local role`) — so the
 * grants are checked by Postgres, not by the test server's HTTP layer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQL_FUNCTIONS, type SqlFunction } from '../../server/store/functions.ts';
import type { OpenStore } from '../../server/store/sql-store.ts';
import type { JwtClaims } from '../../server/store/types.ts';
import { basis, withSimilarity } from '../../server/testing/vectors.ts';
import { startRpcServer, statusFor, type RpcServer } from './rpc-server.ts';
import { openSuiteStore } from './suite-database.ts';

const SECRET = 'attacker-test-jwt-secret-0123456789abcdef';
/** The server's answer write key; its hash is in the database, the key itself never reaches a visitor. */
const SERVER_KEY = 'attacker-test-answer-write-key-0123456789abcdef';
/**
 * Who may call what is read from server/store/functions.ts (test/workerd/schema.test.ts checks it against the
 * grants): a function opened to anon or authenticated there gets no further without its bounds in BOUNDED.
 */
const DESCRIBED = Object.entries(SQL_FUNCTIONS) as [string, SqlFunction][];
const granted = (role: 'anon' | 'authenticated') =>
  DESCRIBED.filter(([, f]) => f.grants.some((r) => r === role))
    .map(([name]) => name)
    .sort();
/**
 * The chat_* / record_* functions that store the server's word, each refusing a caller without SERVER_KEY:
 * the ones that take `p_write_key`. The other chat writes store the visitor's own word (their question,
 * their rating of their own answer).
 */
const SERVER_WRITES = DESCRIBED.filter(([, f]) => f.args.includes('p_write_key'))
  .map(([name]) => name)
  .sort();
const VISITOR_WRITES = ['chat_begin_turn', 'chat_set_feedback'];
const MODEL = 'test-model';

/** What an anon-key holder without a user token may call: /api/health's counts, the empty-KB check, /api/config. */
const OPEN_TO_ANON = granted('anon');
/** The console's admin_* functions: callable by signed-in users, each refusing all but admins itself. */
const ADMIN_ONLY = DESCRIBED.filter(([name, f]) => f.via === 'console' && name.startsWith('admin_'))
  .map(([name]) => name)
  .sort();
/** What a signed-in (e.g. anonymous) user may call; each has its bounds checked in BOUNDED below. */
const OPEN_TO_USERS = granted('authenticated');
/** The only tables a signed-in user may read (their own rows, under RLS); no table is writable. */
const READABLE_BY_USERS = ['chat_messages', 'chat_sessions'];

type Who = 'anon' | 'mallory';
interface Attempt {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON as PostgREST answers it
}
interface AttackPath {
  rpc(fn: string, args: Record<string, unknown>, who: Who): Promise<Attempt>;
  table(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    name: string,
    who: Who,
    body?: Record<string, unknown>,
  ): Promise<Attempt>;
}

let pg: OpenStore;
let server: RpcServer;
let token: string;
let mallory: JwtClaims;
let alice: JwtClaims;
/** Alice's data, which Mallory must neither read nor change. */
const world = {
  session: '',
  question: '',
  answer: '',
  citedAnswer: '',
  enabledChunk: '',
  disabledChunk: '',
  chunks: 0,
  docId: '',
};

const owner = async <T>(sql: string, params: unknown[] = []) => (await pg.db.query<T>(sql, params)).rows;

async function signUp(): Promise<{ token: string; claims: JwtClaims }> {
  const res = await fetch(`${server.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: server.anonKey, 'Content-Type': 'application/json' },
    body: '{}',
  });
  const body = (await res.json()) as { access_token: string };
  const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1]!, 'base64url').toString()) as JwtClaims;
  return { token: body.access_token, claims };
}

beforeAll(async () => {
  pg = await openSuiteStore({ answerWriteKey: SERVER_KEY });
  server = await startRpcServer({ store: pg, jwtSecret: SECRET });
  ({ token, claims: mallory } = await signUp());
  ({ claims: alice } = await signUp());
  // 210 chunks, more than any bound, so a bound that does not hold shows; one disabled document.
  const chunks = Array.from({ length: 210 }, (_, i) => ({
    content: `Refunds are issued within ${i + 1} days.`,
    meta: { section: `Refunds ${i}` },
    embedding: withSimilarity(0, 0.2 + i / 300),
  }));
  const docId = await pg.ingestDocument({
    source: 'billing.md',
    name: 'Billing',
    meta: {},
    checksum: 'a',
    model: MODEL,
    chunks,
  });
  const hiddenId = await pg.ingestDocument({
    source: 'internal.md',
    name: 'Internal',
    meta: {},
    checksum: 'b',
    model: MODEL,
    chunks: [{ content: 'The internal refunds override code is 4242.', meta: {}, embedding: basis(0) }],
  });
  await pg.setDocumentEnabled(hiddenId, false);
  const turn = await pg.beginTurn(alice, {
    message_id: crypto.randomUUID(),
    content: 'How do refunds work?',
    title: 'Refunds',
  });
  world.session = turn.session_id;
  world.question = (
    await owner<{ id: string }>(`select id from chat_messages where session_id = $1`, [turn.session_id])
  )[0]!.id;
  // An answered question of Alice's, its answer rated by her: Mallory may neither read nor change
  // that rating. (world.question stays unanswered: chat_finish_turn's check needs its free answer slot.)
  const answered = crypto.randomUUID();
  await pg.beginTurn(alice, {
    session_id: turn.session_id,
    message_id: answered,
    content: 'And invoices?',
    title: 'Invoices',
  });
  world.answer = await pg.finishTurn(alice, {
    session_id: turn.session_id,
    reply_to: answered,
    content: 'Monthly.',
    citations: [],
    meta: {},
  });
  await pg.setFeedback(alice, { message_id: world.answer, rating: 1, comment: 'Alice’s private comment' });
  world.enabledChunk = (
    await owner<{ id: string }>(`select id from kb_chunks where document_id = $1 limit 1`, [docId])
  )[0]!.id;
  world.disabledChunk = (
    await owner<{ id: string }>(`select id from kb_chunks where document_id = $1`, [hiddenId])
  )[0]!.id;
  world.chunks = 211;
  // An answered question of Alice's with a citation, in its own session: its written version is hers alone to store.
  const cited = await pg.beginTurn(alice, {
    message_id: crypto.randomUUID(),
    content: 'How long do refunds take?',
    title: 'Refunds',
  });
  const [asked] = await owner<{ id: string }>(`select id from chat_messages where session_id = $1 and role = 'user'`, [
    cited.session_id,
  ]);
  world.citedAnswer = await pg.finishTurn(alice, {
    session_id: cited.session_id,
    reply_to: asked!.id,
    content: 'Refunds are issued within 1 days. [1]',
    citations: [
      {
        n: 1,
        chunk_id: world.enabledChunk,
        document_id: docId,
        title: 'Billing',
        page: null,
        section: null,
        url: null,
        similarity: 0.9,
      },
    ],
    meta: { kind: 'answer' },
  });
  world.docId = docId;
});
afterAll(async () => {
  await server?.close();
  await pg?.close();
});

/** PostgREST over HTTP, with the anon key (and Mallory's token when she is the caller). */
const overHttp: AttackPath = {
  async rpc(fn, args, who) {
    return http('POST', `/rest/v1/rpc/${fn}`, who, args);
  },
  async table(method, name, who, body) {
    return http(method, `/rest/v1/${name}`, who, body);
  },
};

async function http(method: string, path: string, who: Who, body?: Record<string, unknown>): Promise<Attempt> {
  const headers: Record<string, string> = { apikey: server.anonKey, 'Content-Type': 'application/json' };
  if (who === 'mallory') headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`${server.url}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** The embedded database, each call in one transaction as PostgREST makes it. */
const embedded: AttackPath = {
  async rpc(fn, args, who) {
    const [proc] = await owner<{ names: string[] | null; types: string[]; rows: boolean }>(
      `select p.proargnames[1:p.pronargs] as names,
         array(select format_type(t, null) from unnest(p.proargtypes::oid[]) t) as types,
         p.proretset or t.typtype in ('c', 'p') as rows
       from pg_proc p join pg_type t on t.oid = p.prorettype
       where p.pronamespace = 'public'::regnamespace and p.proname = $1`,
      [fn],
    );
    const names = proc!.names ?? [];
    const given = names.map((n, i) => ({ n, type: proc!.types[i]! })).filter((a) => a.n in args);
    const call = `public.${fn}(${given.map((a, i) => `${a.n} => $${i + 1}::${a.type}`).join(', ')})`;
    const sql = proc!.rows
      ? `select coalesce(json_agg(_r), '[]'::json) as body from ${call} _r`
      : `select to_json(${call}) as body`;
    const params = given.map((a) => {
      const value = args[a.n];
      return value === null || value === undefined ? null : typeof value === 'object' ? JSON.stringify(value) : value;
    });
    return asRole(who, sql, params);
  },
  async table(method, name, who, body = {}) {
    const columns = Object.keys(body)
      .map((c) => `"${c}"`)
      .join(', ');
    const sql = {
      GET: `select coalesce(json_agg(_t), '[]'::json) as body from (select * from public.${name} limit 1000) _t`,
      POST: `with _w as (insert into public.${name} (${columns}) select ${columns} from json_populate_record(null::public.${name}, $1::json) returning 1) select count(*) as body from _w`,
      PATCH: `with _w as (update public.${name} set (${columns}) = (select ${columns} from json_populate_record(null::public.${name}, $1::json)) returning 1) select count(*) as body from _w`,
      DELETE: `with _w as (delete from public.${name} returning 1) select count(*) as body from _w`,
    }[method];
    return asRole(who, sql, method === 'POST' || method === 'PATCH' ? [JSON.stringify(body)] : []);
  },
};

async function asRole(who: Who, sql: string, params: unknown[]): Promise<Attempt> {
  const role = who === 'anon' ? 'anon' : 'authenticated';
  const claims = who === 'anon' ? { role: 'anon' } : mallory;
  try {
    const body = await pg.db.transaction(async (tx) => {
      await tx.query("select set_config('request.jwt.claims', $1, true)", [JSON.stringify(claims)]);
      await tx.exec(`set local role ${role}`);
      return (await tx.query<{ body: unknown }>(sql, params)).rows[0]?.body ?? null;
    });
    return { status: 200, body };
  } catch (error) {
    const { code = '', message } = error as { code?: string; message: string };
    return { status: statusFor(code, who !== 'anon'), body: { code, message } };
  }
}

/** A call refused for want of privilege, as PostgREST reports it (401 for anon, 403 for a user). */
function expectRefused(attempt: Attempt, who: Who, what: RegExp) {
  expect({ status: attempt.status, code: attempt.body?.code }).toEqual({
    status: who === 'anon' ? 401 : 403,
    code: '42501',
  });
  expect(attempt.body.message).toMatch(what);
}

/** A call rejected for its arguments (invalid_parameter_value → 400). */
function expectInvalid(attempt: Attempt) {
  expect({ status: attempt.status, code: attempt.body?.code }).toEqual({ status: 400, code: '22023' });
}

const aliceRows = async () =>
  owner<{ n: number; feedback: unknown }>(
    `select (select count(*) from chat_sessions where user_id = $1)::int + (select count(*) from chat_messages m join chat_sessions s on s.id = m.session_id where s.user_id = $1)::int as n,
       (select json_agg(json_build_object('rating', f.rating, 'comment', f.comment, 'updated_at', f.updated_at)) from chat_feedback f where f.user_id = $1) as feedback`,
    [alice.sub],
  );

/** One check per function an attacker may call: what an attacker would send, and the bound that holds. */
const BOUNDED: Record<string, (path: AttackPath) => Promise<void>> = {
  async kb_stats(path) {
    const { status, body } = await path.rpc('kb_stats', {}, 'anon');
    expect(status).toBe(200);
    expect(Number(body[0].documents)).toBe(2);
  },
  async kb_get_settings(path) {
    const { status, body } = await path.rpc('kb_get_settings', {}, 'anon');
    expect(status).toBe(200);
    // Nothing else, nothing secret: the greeting is shown to every visitor anyway (/api/config).
    expect(Object.keys(body[0]).sort()).toEqual([
      'answer_mode',
      'evidence_threshold',
      'greeting',
      'hybrid_threshold',
      'lexical_threshold',
      'refusal_suggestions',
      'starters',
      'support_url',
      'updated_at',
    ]);
  },
  async kb_set_settings(path) {
    // A visitor who could lower the thresholds would make the assistant answer from nothing; one who could
    // set the greeting or the suggestions would speak to every visitor in the site's name.
    // One who could set the webhook would receive every refused question and rating, signed as genuine.
    for (const patch of [
      { answer_mode: 'generative' },
      { evidence_threshold: 0, lexical_threshold: 0, hybrid_threshold: 0 },
      { greeting: 'Visit evil.example' },
      { refusal_suggestions: ['Call +1 555 0100'] },
      { webhook_url: 'https://evil.example/', webhook_secret: 'mallory-knows-this-secret' },
    ]) {
      expectRefused(await path.rpc('kb_set_settings', { p_patch: patch }, 'mallory'), 'mallory', /admins only/);
    }
    expect(
      await owner(
        `select answer_mode, evidence_threshold, lexical_threshold, hybrid_threshold, greeting, refusal_suggestions from kb_settings`,
      ),
    ).toEqual([
      {
        answer_mode: null,
        evidence_threshold: null,
        lexical_threshold: null,
        hybrid_threshold: null,
        greeting: null,
        refusal_suggestions: null,
      },
    ]);
    // Nor through the table (no privileges, RLS on).
    for (const method of ['PATCH', 'POST', 'DELETE'] as const) {
      expect(
        (await path.table(method, 'kb_settings', 'mallory', { greeting: 'Visit evil.example' })).status,
      ).toBeGreaterThanOrEqual(400);
    }
    expect(await owner(`select greeting, webhook_url, webhook_secret from kb_settings`)).toEqual([
      { greeting: null, webhook_url: null, webhook_secret: null },
    ]);
  },
  async kb_assistants_state(path) {
    const { status, body } = await path.rpc('kb_assistants_state', {}, 'anon');
    expect(status).toBe(200);
    // A switch and a hash: nothing about the documents beyond that they changed.
    expect(Object.keys(body[0]).sort()).toEqual(['enabled', 'version']);
  },
  async kb_assistant_pages(path) {
    // The pages' text is public (the widget quotes it to anyone who asks); the disabled document's is not.
    const { status, body } = await path.rpc('kb_assistant_pages', { p_with_text: true }, 'anon');
    expect(status).toBe(200);
    expect(body.map((page: { title: string }) => page.title)).toEqual(['Billing']);
    expect(JSON.stringify(body)).not.toContain('4242');
  },
  async kb_has_documents(path) {
    expect(await path.rpc('kb_has_documents', {}, 'anon')).toEqual({ status: 200, body: true });
  },
  async search_chunks(path) {
    const greedy = await path.rpc(
      'search_chunks',
      {
        query_embedding: basis(0),
        query_text: 'refunds issued days',
        match_count: 1000,
        candidate_count: 100000,
      },
      'mallory',
    );
    expect(greedy.status).toBe(200);
    expect(greedy.body).toHaveLength(200);
    expect(greedy.body.map((r: { content: string }) => r.content)).not.toContain(
      'The internal refunds override code is 4242.',
    );
    expectInvalid(await path.rpc('search_chunks', { query_text: 'refunds '.repeat(20_000) }, 'mallory'));
    expectInvalid(await path.rpc('search_chunks', { query_text: 'refunds', search_mode: 'everything' }, 'mallory'));
    expectInvalid(
      await path.rpc('search_chunks', { query_text: 'refunds', filters: ['not', 'an', 'object'] }, 'mallory'),
    );
  },
  async match_chunks(path) {
    // basis(7) is orthogonal to every stored vector (similarity 0): never more than 50 rows however many
    // are asked for.
    const many = await path.rpc(
      'match_chunks',
      { query_embedding: basis(7), threshold: -1, match_count: 1000 },
      'mallory',
    );
    expect(many.status).toBe(200);
    expect(many.body).toHaveLength(50);
    // The opposite of every stored vector (similarity < 0): a threshold of -1 would return them all; it is
    // held at 0.
    const opposite = basis(0).map((x) => -x);
    expect(
      await path.rpc('match_chunks', { query_embedding: opposite, threshold: -1, match_count: 50 }, 'mallory'),
    ).toEqual({ status: 200, body: [] });
  },
  async get_chunk(path) {
    expect((await path.rpc('get_chunk', { p_chunk_id: world.disabledChunk }, 'mallory')).body).toEqual([]);
    expect((await path.rpc('get_chunk', { p_chunk_id: world.enabledChunk }, 'mallory')).body).toHaveLength(1);
  },
  async chat_begin_turn(path) {
    const before = await aliceRows();
    const intoAlices = await path.rpc(
      'chat_begin_turn',
      {
        p_session_id: world.session,
        p_message_id: crypto.randomUUID(),
        p_content: 'injected',
        p_title: 'x',
      },
      'mallory',
    );
    expectRefused(intoAlices, 'mallory', /does not belong/);
    // Alice's message id: a conflict that reveals nothing about her message.
    const reused = await path.rpc(
      'chat_begin_turn',
      { p_session_id: null, p_message_id: world.question, p_content: 'x', p_title: 'x' },
      'mallory',
    );
    expect(reused.status).toBe(409);
    expectInvalid(
      await path.rpc(
        'chat_begin_turn',
        { p_session_id: null, p_message_id: crypto.randomUUID(), p_content: 'x'.repeat(2001), p_title: 'x' },
        'mallory',
      ),
    );
    expectInvalid(
      await path.rpc(
        'chat_begin_turn',
        { p_session_id: null, p_message_id: crypto.randomUUID(), p_content: 'x', p_title: 't'.repeat(201) },
        'mallory',
      ),
    );
    expect(await aliceRows()).toEqual(before);
  },
  async chat_finish_turn(path) {
    const own = await path.rpc(
      'chat_begin_turn',
      { p_session_id: null, p_message_id: crypto.randomUUID(), p_content: 'my own', p_title: 'mine' },
      'mallory',
    );
    const mySession = own.body[0].session_id as string;
    // Without the key Mallory is refused outright (SERVER_WRITES below); with it — the server answering her,
    // a bug in the server being what is guarded against here — her answer still cannot take Alice's
    // question's one answer slot, from Alice's session or from her own.
    for (const session of [world.session, mySession]) {
      const steal = await path.rpc(
        'chat_finish_turn',
        {
          p_session_id: session,
          p_reply_to: world.question,
          p_content: 'pwned',
          p_citations: [],
          p_meta: {},
          p_write_key: SERVER_KEY,
        },
        'mallory',
      );
      expectRefused(steal, 'mallory', /is not a question of this user/);
    }
    const [myQuestion] = await owner<{ id: string }>(
      `select id from chat_messages where session_id = $1 and role = 'user'`,
      [mySession],
    );
    const finish = (extra: Record<string, unknown>) =>
      path.rpc(
        'chat_finish_turn',
        {
          p_session_id: mySession,
          p_reply_to: myQuestion!.id,
          p_content: 'ok',
          p_citations: [],
          p_meta: {},
          p_write_key: SERVER_KEY,
          ...extra,
        },
        'mallory',
      );
    expectInvalid(await finish({ p_content: 'x'.repeat(32_001) }));
    expectInvalid(await finish({ p_citations: { not: 'an array' } }));
    expectInvalid(await finish({ p_meta: { blob: 'x'.repeat(70_000) } }));
    expect((await finish({})).status).toBe(200);
    // Alice's question still has no answer, and hers can be stored.
    expect(await owner(`select 1 from chat_messages where reply_to = $1`, [world.question])).toEqual([]);
  },
  async chat_save_generated(path) {
    const generated = async (id: string) =>
      (await owner<{ g: unknown }>(`select meta -> 'generated' as g from chat_messages where id = $1`, [id]))[0]?.g ??
      null;
    // Writing "her" answer over Alice's, even through the server (with its key).
    expectRefused(
      await path.rpc(
        'chat_save_generated',
        {
          p_message_id: world.citedAnswer,
          p_text: 'Refunds are never issued [1].',
          p_model: 'evil',
          p_write_key: SERVER_KEY,
        },
        'mallory',
      ),
      'mallory',
      /is not an answer of this user/,
    );
    expect(await generated(world.citedAnswer)).toBeNull();
    // Her own answer: bounded, and only its own citations.
    const own = await path.rpc(
      'chat_begin_turn',
      { p_session_id: null, p_message_id: crypto.randomUUID(), p_content: 'mine?', p_title: 'mine' },
      'mallory',
    );
    const [q] = await owner<{ id: string }>(`select id from chat_messages where session_id = $1 and role = 'user'`, [
      own.body[0].session_id,
    ]);
    const finished = await path.rpc(
      'chat_finish_turn',
      {
        p_session_id: own.body[0].session_id,
        p_reply_to: q!.id,
        p_content: 'ok [1]',
        p_citations: [{ n: 1, chunk_id: world.enabledChunk }],
        p_meta: { kind: 'answer' },
        p_write_key: SERVER_KEY,
      },
      'mallory',
    );
    const mine = finished.body as string;
    const save = (args: Record<string, unknown>) =>
      path.rpc('chat_save_generated', { p_message_id: mine, p_write_key: SERVER_KEY, ...args }, 'mallory');
    expectInvalid(await save({ p_text: 'See [1] and [9].', p_model: 'm' }));
    expectInvalid(await save({ p_text: 'x'.repeat(8001), p_model: 'm' }));
    expectInvalid(await save({ p_text: 'ok', p_model: 'm'.repeat(201) }));
    expect(await generated(mine)).toBeNull();
    expect((await save({ p_text: 'Written [1].', p_model: 'm' })).status).toBe(200);
    // The first stays: a second call cannot rewrite it.
    await save({ p_text: 'Rewritten [1].', p_model: 'm' });
    expect(await generated(mine)).toMatchObject({ text: 'Written [1].', model: 'm' });
  },
  async chat_set_feedback(path) {
    const before = await aliceRows();
    // Rating (or re-rating) Alice's answer, her question, or an id that does not exist: one refusal for all,
    // so ids cannot be probed.
    for (const id of [world.answer, world.question, crypto.randomUUID()]) {
      expectRefused(
        await path.rpc('chat_set_feedback', { p_message_id: id, p_rating: -1, p_comment: 'spam' }, 'mallory'),
        'mallory',
        /is not an answer of this user/,
      );
    }
    expect(await aliceRows()).toEqual(before);
    // Her own answer: bounded rating and comment, one row however often she calls.
    const own = await path.rpc(
      'chat_begin_turn',
      { p_session_id: null, p_message_id: crypto.randomUUID(), p_content: 'rate me', p_title: 'rate' },
      'mallory',
    );
    const mySession = own.body[0].session_id as string;
    const [myQuestion] = await owner<{ id: string }>(
      `select id from chat_messages where session_id = $1 and role = 'user'`,
      [mySession],
    );
    const answer = await path.rpc(
      'chat_finish_turn',
      {
        p_session_id: mySession,
        p_reply_to: myQuestion!.id,
        p_content: 'ok',
        p_citations: [],
        p_meta: {},
        p_write_key: SERVER_KEY,
      },
      'mallory',
    );
    const myAnswer = answer.body as string;
    const rate = (extra: Record<string, unknown>) =>
      path.rpc('chat_set_feedback', { p_message_id: myAnswer, p_rating: 1, p_comment: null, ...extra }, 'mallory');
    expectInvalid(await rate({ p_rating: 5 }));
    expectInvalid(await rate({ p_rating: null }));
    expectInvalid(await rate({ p_comment: 'x'.repeat(1001) }));
    expectInvalid(await rate({ p_comment: `  ${'x'.repeat(1001)}  ` }));
    for (let i = 0; i < 3; i++) expect((await rate({ p_rating: -1, p_comment: `\n  take ${i}\t ` })).status).toBe(200);
    expect(await owner(`select rating, comment from chat_feedback where message_id = $1`, [myAnswer])).toEqual([
      { rating: -1, comment: 'take 2' },
    ]);
    expect((await rate({ p_comment: ' \n\t ' })).status).toBe(200); // a blank comment is no comment
    expect(await owner(`select rating, comment from chat_feedback where message_id = $1`, [myAnswer])).toEqual([
      { rating: 1, comment: null },
    ]);
  },
  async get_chat_feedback(path) {
    expect(await path.rpc('get_chat_feedback', { p_session_id: world.session }, 'mallory')).toEqual({
      status: 200,
      body: [],
    });
  },
  async list_chat_sessions(path) {
    const { status, body } = await path.rpc('list_chat_sessions', { p_limit: 1_000_000 }, 'mallory');
    expect(status).toBe(200);
    expect(body.map((s: { id: string }) => s.id)).not.toContain(world.session);
  },
  async get_chat_session(path) {
    expect(await path.rpc('get_chat_session', { p_session_id: world.session }, 'mallory')).toEqual({
      status: 200,
      body: [],
    });
  },
  async get_chat_messages(path) {
    expect(await path.rpc('get_chat_messages', { p_session_id: world.session }, 'mallory')).toEqual({
      status: 200,
      body: [],
    });
  },
  async get_recent_chat_messages(path) {
    // Another visitor's session reads as an empty one, however many rows are asked for.
    expect(
      await path.rpc('get_recent_chat_messages', { p_session_id: world.session, p_limit: 1_000_000 }, 'mallory'),
    ).toEqual({ status: 200, body: [] });
  },
  async rate_limit_hit(path) {
    expectInvalid(
      await path.rpc('rate_limit_hit', { p_bucket: 'mine-'.repeat(100), p_limit: 1, p_window_seconds: 60 }, 'mallory'),
    );
    expectInvalid(await path.rpc('rate_limit_hit', { p_bucket: 'api', p_limit: 1, p_window_seconds: -60 }, 'mallory'));
    expectInvalid(await path.rpc('rate_limit_hit', { p_bucket: 'api', p_limit: 0, p_window_seconds: 60 }, 'mallory'));
    expectInvalid(
      await path.rpc('rate_limit_hit', { p_bucket: 'api', p_limit: 1, p_window_seconds: 10_000_000 }, 'mallory'),
    );
    expect(
      await owner(`select bucket from rate_limits where bucket <> 'api' or window_start < now() - interval '1 day'`),
    ).toEqual([]);
    expect(
      (await path.rpc('rate_limit_hit', { p_bucket: 'api', p_limit: 100, p_window_seconds: 60 }, 'mallory')).status,
    ).toBe(200);
  },
  async record_content_gap(path) {
    // As the server calls it for Mallory (with the key): only her own question, a known reason, bounded.
    const gap = (args: Record<string, unknown>) =>
      path.rpc('record_content_gap', { p_write_key: SERVER_KEY, ...args }, 'mallory');
    expectRefused(
      await gap({ p_question: 'spam', p_reason: 'no_evidence', p_message_id: world.question }),
      'mallory',
      /is not a question of this user/,
    );
    const own = await path.rpc(
      'chat_begin_turn',
      { p_session_id: null, p_message_id: crypto.randomUUID(), p_content: 'gap?', p_title: 'gap' },
      'mallory',
    );
    const [message] = await owner<{ id: string }>(`select id from chat_messages where session_id = $1`, [
      own.body[0].session_id,
    ]);
    expectInvalid(await gap({ p_question: 'gap?', p_reason: 'r'.repeat(10_000), p_message_id: message!.id }));
    expectInvalid(await gap({ p_question: 'g'.repeat(2001), p_reason: 'no_evidence', p_message_id: message!.id }));
    expect(
      await owner(
        `select 1 from content_gaps where reason not in ('no_evidence', 'empty_kb') or char_length(question) > 500`,
      ),
    ).toEqual([]);
  },
  async list_content_gaps(path) {
    expectRefused(await path.rpc('list_content_gaps', { p_limit: 1000 }, 'mallory'), 'mallory', /admins only/);
  },
  // The console's: a visitor (Mallory) is refused before any argument is looked at, and changes nothing.
  ...Object.fromEntries(
    ADMIN_ONLY.map((fn) => [
      fn,
      async (path: AttackPath) => {
        const args: Record<string, Record<string, unknown>> = {
          admin_delete_document: { p_id: world.docId },
          admin_set_document_enabled: { p_id: world.docId, p_enabled: false },
          admin_set_gap_done: { p_question_key: 'x', p_done: true },
          admin_list_gaps: { p_status: 'all', p_limit: 200, p_offset: 0 },
          admin_list_conversations: {
            p_rating: 'any',
            p_outcome: 'any',
            p_from: null,
            p_to: null,
            p_limit: 200,
            p_offset: 0,
          },
          admin_list_documents: { p_query: '', p_limit: 200, p_offset: 0 },
          admin_overview: { p_from: '2026-01-01T00:00:00Z', p_to: '2026-02-01T00:00:00Z' },
          admin_sync_status: {},
          admin_whoami: {},
          admin_export_conversations: { p_from: null, p_to: null, p_after: null, p_limit: 1000 },
          admin_export_gaps: { p_from: null, p_to: null, p_after: null, p_limit: 1000 },
          admin_export_feedback: { p_from: null, p_to: null, p_after: null, p_limit: 1000 },
          admin_get_webhook: {},
          // Turning off what assistants read would hide the docs from every editor that uses them.
          admin_set_assistants: { p_enabled: false },
          // Another visitor's conversation, read whole: refused like the list.
          admin_get_thread: { p_session_id: crypto.randomUUID() },
        };
        expectRefused(await path.rpc(fn, args[fn]!, 'mallory'), 'mallory', /admins only/);
        expect(await owner(`select enabled from kb_documents where id = $1`, [world.docId])).toEqual([
          { enabled: true },
        ]);
        expect(await owner(`select assistants_enabled from kb_settings`)).toEqual([{ assistants_enabled: null }]);
      },
    ]),
  ),
};

describe.each([
  ['PostgREST over HTTP (anon key, an anonymous user’s token)', overHttp],
  ['the embedded database (claims and role set as PostgREST sets them)', embedded],
] as const)('an attacker on %s', (_, path) => {
  it('may call only the designed functions; each of them has its bounds checked here', async () => {
    expect(Object.keys(BOUNDED).sort()).toEqual(OPEN_TO_USERS);
  });

  it('is refused every other function, found in pg_proc, with and without a user token', async () => {
    const functions = await owner<{ name: string; args: string[] | null; trigger: boolean }>(
      `select proname as name, proargnames[1:pronargs] as args, prorettype = 'trigger'::regtype as trigger
       from pg_proc where pronamespace = 'public'::regnamespace order by proname`,
    );
    expect(functions.length).toBeGreaterThan(OPEN_TO_USERS.length);
    for (const { name, args, trigger } of functions) {
      // Every argument sent as null: privilege is checked before any argument is looked at.
      const nulls = Object.fromEntries((args ?? []).map((a) => [a, null]));
      for (const who of ['anon', 'mallory'] as const) {
        const attempt = await path.rpc(name, nulls, who);
        const open = (who === 'anon' ? OPEN_TO_ANON : OPEN_TO_USERS).includes(name);
        if (open) {
          expect(attempt.body?.message ?? '', `${name} as ${who}`).not.toMatch(/permission denied/);
        } else if (trigger) {
          // A trigger function cannot be called at all (Postgres refuses before checking privileges), and
          // the grant is gone too, should that ever change.
          expect(attempt.status, `${name} as ${who}`).toBeGreaterThanOrEqual(400);
          const role = who === 'anon' ? 'anon' : 'authenticated';
          expect(await owner(`select has_function_privilege($1, $2::regproc, 'execute') as ok`, [role, name])).toEqual([
            { ok: false },
          ]);
        } else {
          expectRefused(attempt, who, new RegExp(`permission denied for function ${name}`));
        }
      }
    }
  });

  it('can read no table but its own chat rows, and write none, found in pg_class', async () => {
    const tables = await owner<{ name: string; column: string }>(
      `select c.relname as name, (select attname from pg_attribute where attrelid = c.oid and attnum = 1) as column
       from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' order by c.relname`,
    );
    expect(tables.length).toBeGreaterThanOrEqual(11);
    expect(tables.map((t) => t.name)).toContain('chat_feedback'); // visitors' ratings: neither readable nor writable
    const before = await aliceRows();
    for (const { name, column } of tables) {
      for (const who of ['anon', 'mallory'] as const) {
        const read = await path.table('GET', name, who);
        if (who === 'mallory' && READABLE_BY_USERS.includes(name)) {
          expect(read.status).toBe(200);
          expect(JSON.stringify(read.body)).not.toContain(world.session);
        } else {
          expectRefused(read, who, new RegExp(`permission denied for table ${name}`));
        }
        for (const method of ['POST', 'PATCH', 'DELETE'] as const) {
          const write = await path.table(method, name, who, method === 'DELETE' ? undefined : { [column]: null });
          expectRefused(write, who, new RegExp(`permission denied for table ${name}`));
        }
      }
    }
    expect(await aliceRows()).toEqual(before);
    expect((await owner<{ n: number }>('select count(*)::int as n from kb_chunks'))[0]!.n).toBe(world.chunks);
  });

  it("cannot store the server's word: every chat_* / record_* write without the key, or with a wrong one, is refused and stores nothing", async () => {
    // Which functions take the key is read from pg_proc: a new chat_* / record_* write must take it or be
    // named here as storing the visitor's own word.
    const writes = await owner<{ name: string; keyed: boolean }>(
      `select proname as name, 'p_write_key' = any(coalesce(proargnames, '{}')) as keyed from pg_proc
       where pronamespace = 'public'::regnamespace and (proname like 'chat\\_%' or proname like 'record\\_%')
         and proname not in ('chat_existing_turn') order by proname`,
    );
    expect(writes.filter((w) => w.keyed).map((w) => w.name)).toEqual(SERVER_WRITES);
    expect(writes.filter((w) => !w.keyed).map((w) => w.name)).toEqual(VISITOR_WRITES);

    // Mallory's own question, unanswered, and her own answer (stored by the server, with the key).
    const asked = async (content: string) => {
      const own = await path.rpc(
        'chat_begin_turn',
        { p_session_id: null, p_message_id: crypto.randomUUID(), p_content: content, p_title: 't' },
        'mallory',
      );
      const session = own.body[0].session_id as string;
      const [q] = await owner<{ id: string }>(`select id from chat_messages where session_id = $1 and role = 'user'`, [
        session,
      ]);
      return { session, question: q!.id };
    };
    const open = await asked('Is it free?');
    const answered = await asked('Refunds?');
    const answer = await pg.finishTurn(mallory, {
      session_id: answered.session,
      reply_to: answered.question,
      content: 'Within 14 days. [1]',
      citations: [
        {
          n: 1,
          chunk_id: world.enabledChunk,
          document_id: world.docId,
          title: 'Billing',
          page: null,
          section: null,
          url: null,
          similarity: 0.9,
        },
      ],
      meta: { kind: 'answer' },
    });

    // What the console would trust: "high" confidence, a non-numeric evidence and similarity, an attacker's link.
    const forgedMeta = { kind: 'answer', confidence: 'high', evidence: 'very strong', mode: 'hybrid' };
    const forgedCitations = [
      {
        n: 1,
        chunk_id: world.enabledChunk,
        document_id: world.docId,
        title: 'Official refund form',
        page: null,
        section: null,
        url: 'https://evil.example/refund',
        similarity: 'high',
      },
    ];
    const attempts: Record<string, Record<string, unknown>> = {
      chat_finish_turn: {
        p_session_id: open.session,
        p_reply_to: open.question,
        p_content: 'Send your card number to evil.example [1]',
        p_citations: forgedCitations,
        p_meta: forgedMeta,
      },
      chat_save_generated: {
        p_message_id: answer,
        p_text: 'Refunds: https://evil.example/refund [1]',
        p_model: 'HuggingFaceTB/SmolLM2-360M-Instruct',
      },
      record_content_gap: {
        p_question: 'Why is this product a scam?',
        p_reason: 'no_evidence',
        p_message_id: open.question,
      },
    };
    const stored = () =>
      owner(`select (select count(*) from chat_messages where role = 'assistant')::int as answers,
                    (select count(*) from chat_messages where meta ? 'generated')::int as written,
                    (select coalesce(sum(asked), 0) from content_gaps)::int as gaps`);
    const before = await stored();
    for (const fn of SERVER_WRITES) {
      for (const key of [
        undefined,
        null,
        '',
        'wrong-key',
        SERVER_KEY.slice(0, -1),
        `${SERVER_KEY} `,
        SERVER_KEY.toUpperCase(),
      ]) {
        for (const who of ['anon', 'mallory'] as const) {
          const attempt = await path.rpc(
            fn,
            { ...attempts[fn], ...(key === undefined ? {} : { p_write_key: key }) },
            who,
          );
          if (key === undefined) {
            // The signature without the key is gone: PostgREST (and Postgres) find no such function.
            expect(attempt.status, `${fn} without p_write_key as ${who}`).toBe(404);
            continue;
          }
          expectRefused(attempt, who, /answers are written by the server only|permission denied/);
          if (who === 'mallory')
            expect(attempt.body.message, `${fn} with ${String(key)}`).toMatch(
              /the answer write key is missing or wrong/,
            );
        }
      }
    }
    expect(await stored()).toEqual(before);
    expect(await owner(`select 1 from chat_messages where reply_to = $1`, [open.question])).toEqual([]);
  });

  it('is refused by every server write before an answer write key is set, with a message saying how to set one', async () => {
    const [saved] = await owner<{ key_hash: string }>(`select key_hash from kb_answer_write_key`);
    await owner(`delete from kb_answer_write_key`);
    try {
      const own = await path.rpc(
        'chat_begin_turn',
        { p_session_id: null, p_message_id: crypto.randomUUID(), p_content: 'unset?', p_title: 't' },
        'mallory',
      );
      const session = own.body[0].session_id as string;
      const [q] = await owner<{ id: string }>(`select id from chat_messages where session_id = $1 and role = 'user'`, [
        session,
      ]);
      // Even with the key the server holds: nothing to compare it with is nothing accepted (fail closed).
      for (const key of [SERVER_KEY, null]) {
        const attempt = await path.rpc(
          'chat_finish_turn',
          { p_session_id: session, p_reply_to: q!.id, p_content: 'x', p_citations: [], p_meta: {}, p_write_key: key },
          'mallory',
        );
        expectRefused(attempt, 'mallory', /no answer write key is set: on Supabase run `npm run admin -- answer-key`/);
      }
      expect(await owner(`select 1 from chat_messages where reply_to = $1`, [q!.id])).toEqual([]);
    } finally {
      await owner(`select kb_set_answer_write_key($1)`, [saved!.key_hash]);
    }
  });

  it.each(Object.keys(BOUNDED))('calls %s as an attacker would, and it holds its bounds', async (fn) => {
    await BOUNDED[fn]!(path);
  });
});
