/**
 * The console reads stored answers defensively: rows written before answers were the server's alone (a
 * visitor could call chat_finish_turn over PostgREST with any meta and citations) may hold anything the
 * CHECK constraints let through. Such a row is shown with its odd values as unknown (null, "—" in the
 * console), and never fails the overview or a page of conversations — in SQL (admin_overview,
 * admin_list_conversations, 20261126020000) and through the console's API.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { AdminConversation, Overview, Page } from '../../protocol/index.ts';
import { toAdminConversation } from '../store/rows.ts';
import type { JwtClaims } from '../store/types.ts';
import { question, useTestApi, signInAdmin } from '../testing/api.ts';
import { basis } from '../testing/vectors.ts';

const api = useTestApi();
let adminToken: string;
let adminClaims: JwtClaims;
let badAnswer: string;
let hugeAnswer: string;

/** What an old chat_finish_turn accepted from a visitor, inserted as the table owner. */
const MALFORMED = {
  meta: {
    kind: 'answer',
    evidence: 'high',
    confidence: 'very high',
    mode: { not: 'a mode' },
    generated: { text: 42, model: ['x'] },
  },
  citations: [
    {
      n: '1',
      title: 7,
      section: null,
      page: 'two',
      url: 'https://evil.example/',
      chunk_id: 1,
      document_id: true,
      similarity: '0.99',
    },
    'not a citation',
    { n: 2, title: 'Billing', similarity: { value: 1 } },
  ],
};

beforeAll(async () => {
  await api().seedKb();
  // One well-formed answer through the API, so the figures have something to stay right about.
  const { token } = await api().signIn();
  const res = await api().chat(token, question(basis(0)), { headers: { Accept: 'application/json' } });
  expect(res.status).toBe(200);

  const db = api().store.db;
  const user = await api().store.createAnonymousUser();
  const session = crypto.randomUUID();
  await db.query(`insert into chat_sessions (id, user_id, title) values ($1, $2, 'Old')`, [session, user]);
  /** Inserts a question and its answer with the JSON given as text, so that values JSON.stringify cannot write (1e400) can be stored. */
  const insertTurn = async (meta: string, citations: string) => {
    const asked = (
      await db.query<{ id: string }>(
        `insert into chat_messages (session_id, role, content) values ($1, 'user', 'Old question?') returning id`,
        [session],
      )
    ).rows[0]!.id;
    return (
      await db.query<{ id: string }>(
        `insert into chat_messages (session_id, role, content, citations, reply_to, meta) values ($1, 'assistant', 'Forged [1]', $2::jsonb, $3, $4::jsonb) returning id`,
        [session, citations, asked, meta],
      )
    ).rows[0]!.id;
  };
  badAnswer = await insertTurn(JSON.stringify(MALFORMED.meta), JSON.stringify(MALFORMED.citations));
  // A JSON number no double precision holds, and a confidence that is a number.
  hugeAnswer = await insertTurn(
    '{"kind": "answer", "evidence": 1e400, "confidence": 3}',
    '[{"n": 1, "similarity": 1e400}]',
  );

  const admin = await signInAdmin(api().store);
  adminToken = admin.token;
  const userId = admin.userId;
  adminClaims = { sub: userId, role: 'authenticated', aud: 'authenticated', app_metadata: { role: 'admin' } };
});

const range = () => ({
  from: new Date(Date.now() - 86_400_000).toISOString(),
  to: new Date(Date.now() + 60_000).toISOString(),
});
const get = (path: string) =>
  api().app.request(`/api/admin${path}`, { headers: { Authorization: `Bearer ${adminToken}` } });

function expectShownAsUnknown(items: AdminConversation[]) {
  const bad = items.find((c) => c.message_id === badAnswer)!;
  expect(bad).toMatchObject({ kind: 'answer', confidence: null, mode: null, generated: null, answer: 'Forged [1]' });
  // Objects only, each field of its type or null: nothing of the wrong type reaches the console.
  expect(bad.citations).toEqual([
    {
      n: null,
      chunk_id: null,
      document_id: null,
      title: null,
      page: null,
      section: null,
      url: 'https://evil.example/',
      similarity: null,
    },
    {
      n: 2,
      chunk_id: null,
      document_id: null,
      title: 'Billing',
      page: null,
      section: null,
      url: null,
      similarity: null,
    },
  ]);
  const huge = items.find((c) => c.message_id === hugeAnswer)!;
  expect(huge).toMatchObject({ confidence: null });
  expect(huge.citations[0]!.n).toBe(1);
  // Infinity is no finite number: unknown.
  expect(huge.citations[0]!.similarity).toBeNull();
  const good = items.find((c) => c.message_id !== badAnswer && c.message_id !== hugeAnswer)!;
  expect(good.confidence).toMatch(/^(high|medium|low)$/);
  expect(good.citations[0]!.similarity).toEqual(expect.any(Number));
}

describe('a malformed stored answer', () => {
  it('admin_overview and admin_list_conversations return it with nulls on PGlite, never an error', async () => {
    const { from, to } = range();
    const overview = await api().store.adminOverview(adminClaims, from, to);
    expect([overview.questions, overview.answered, overview.refused]).toEqual([3, 3, 0]);
    // Only the well-formed answer has a usable evidence and tier: the odd ones are left out of the medians.
    expect(overview.median_evidence).toBeCloseTo(1, 5);
    expect(overview.median_confidence).toMatch(/^(high|medium|low)$/);
    const page = await api().store.adminListConversations(adminClaims, {
      rating: 'any',
      outcome: 'any',
      limit: 50,
      offset: 0,
    });
    expect(page.total).toBe(3);
    expectShownAsUnknown(page.items);
    // What the SQL function itself returns (the stores' row mapping checks again; below).
    const raw = await api().store.db.transaction(async (tx) => {
      await tx.query("select set_config('request.jwt.claims', $1, true), set_config('role', 'authenticated', true)", [
        JSON.stringify(adminClaims),
      ]);
      return (
        await tx.query<{ confidence: unknown; mode: unknown; generated: unknown; citations: unknown }>(
          `select confidence, mode, generated, citations from admin_list_conversations('any', 'any', null, null, 50, 0) where message_id = $1`,
          [badAnswer],
        )
      ).rows[0]!;
    });
    expect(raw).toEqual({
      confidence: null,
      mode: null,
      generated: null,
      citations: [
        {
          n: null,
          chunk_id: null,
          document_id: null,
          title: null,
          page: null,
          section: null,
          url: 'https://evil.example/',
          similarity: null,
        },
        {
          n: 2,
          chunk_id: null,
          document_id: null,
          title: 'Billing',
          page: null,
          section: null,
          url: null,
          similarity: null,
        },
      ],
    });
    // The outcome filter still sees it as an answer.
    const answered = await api().store.adminListConversations(adminClaims, {
      rating: 'any',
      outcome: 'answered',
      limit: 50,
      offset: 0,
    });
    expect(answered.total).toBe(3);
  });

  it("is typed again by the stores' row mapping, whatever a function returns", () => {
    const row = toAdminConversation({
      message_id: 'm',
      session_id: 's',
      visitor: 'v-0',
      question: 'q',
      asked_at: new Date(0),
      answer: 'a',
      kind: 'weird',
      reason: 5,
      citations: [...MALFORMED.citations, null],
      confidence: 'very high',
      mode: 3,
      rating: null,
      comment: null,
      generated: MALFORMED.meta.generated,
      total: 1,
    });
    expect(row).toMatchObject({ kind: 'answer', reason: null, confidence: null, mode: null, generated: null });
    expect(row.citations.map((c) => [c.n, c.title, c.similarity, c.page])).toEqual([
      [null, null, null, null],
      [2, 'Billing', null, null],
    ]);
  });

  it('the console API answers 200 for the overview and the conversations, with the same nulls', async () => {
    const { from, to } = range();
    const overview = await get(`/overview?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    expect(overview.status).toBe(200);
    expect(((await overview.json()) as Overview).questions).toBe(3);
    const conversations = await get('/conversations?limit=50');
    expect(conversations.status).toBe(200);
    expectShownAsUnknown(((await conversations.json()) as Page<AdminConversation>).items);
  });

  it('the export writes it with the same unknowns, as JSON and as CSV, to the end of the file', async () => {
    const { from, to } = range();
    const query = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    const json = await get(`/export/conversations?format=json&${query}`);
    expect(json.status).toBe(200);
    const records = JSON.parse(await json.text()) as { message_id: string; citations: unknown[] }[];
    expect(records).toHaveLength(3);
    expect(records.find((r) => r.message_id === badAnswer)!.citations).toEqual([
      { n: null, title: null, url: 'https://evil.example/', section: null },
      { n: 2, title: 'Billing', url: null, section: null },
    ]);
    const csv = await get(`/export/conversations?format=csv&${query}`);
    expect(csv.status).toBe(200);
    const body = await csv.text();
    expect(body).toContain('Forged [1]');
    expect(body).toContain('[2] Billing');
  });
});
