/**
 * Upgrading a database created by the previous release (test/fixtures/upgrade/v0.1.0, made by
 * scripts/upgrade-fixture/make.ts from that release's own app): its migrations and rows are loaded, then
 * the embedded store opens it as `npm start` would, applying every migration written since — whatever
 * supabase/migrations holds today. The old knowledge base must still be searched, the visitor's history read
 * back, feedback, settings and the admin kept, and a new chat turn must work in the old session.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ChatAnswer, SearchResponse, SessionDetail, SessionSummary, Settings } from '../../protocol/index.ts';
import { createApp } from '../app.ts';
import { createLinkToken } from '../console/session.ts';
import { question, TEST_SECRET } from '../testing/api.ts';
import { basis } from '../testing/vectors.ts';
import { migrate, migrationDigest, SUPABASE_DIR } from './migrate.ts';
import { freshDatabase, describeStores } from '../testing/pg.ts';
import { openPgliteStore } from './pglite.ts';
import { openPostgresStore, postgresDb } from './postgres.ts';
import type { OpenStore } from './sql-store.ts';

const RELEASE = 'v0.1.0';
const FIXTURE = new URL(`../../test/fixtures/upgrade/${RELEASE}/`, import.meta.url).pathname;
const released = JSON.parse(readFileSync(join(FIXTURE, 'migrations.json'), 'utf8')) as {
  migrations: { file: string; digest: string }[];
};
const facts = JSON.parse(readFileSync(join(FIXTURE, 'facts.json'), 'utf8')) as {
  visitor_user_id: string;
  session_id: string;
  answers: [string, string];
  refusal_message_id: string;
  settings: Record<string, unknown>;
};
const current = readdirSync(join(SUPABASE_DIR, 'migrations'))
  .filter((f) => f.endsWith('.sql'))
  .sort();

/** The release's database on PGlite, in a data directory, as `npm start` left it. */
async function releasedPglite(old: string): Promise<OpenStore> {
  const dataDir = join(work, 'data');
  const db = await PGlite.create(dataDir, { extensions: { vector } });
  await db.exec('set search_path = public, extensions');
  await migrate(db, old);
  await db.exec(readFileSync(join(FIXTURE, 'data.sql'), 'utf8'));
  await db.close();
  return openPgliteStore(dataDir);
}

/** The release's database on PostgreSQL (a database of its own, dropped on close). */
async function releasedPostgres(old: string): Promise<OpenStore> {
  const { url, drop } = await freshDatabase();
  const db = postgresDb(url, 1);
  await db.withSession((session) => migrate(session, old));
  await db.exec(readFileSync(join(FIXTURE, 'data.sql'), 'utf8'));
  await db.close();
  const opened = await openPostgresStore(url);
  const close = opened.close.bind(opened);
  return Object.assign(opened, { close: () => close().then(drop) });
}

const work = mkdtempSync(join(tmpdir(), `kb-upgrade-${RELEASE}-`));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describeStores(`a database created by ${RELEASE}, opened by this version`, (kind) => {
  let store: OpenStore;
  let app: ReturnType<typeof createApp>;
  let visitor: string;
  let admin: string;

  const call = (path: string, token: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') =>
    app.request(path, {
      method,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  async function json<T>(res: Response | Promise<Response>): Promise<T> {
    const r = await res;
    expect(r.status, await r.clone().text()).toBe(200);
    return (await r.json()) as T;
  }

  beforeAll(async () => {
    // The release's schema: its shim and exactly its migrations, then its rows.
    const old = join(work, `release-supabase-${kind.name}`);
    cpSync(join(FIXTURE, 'local'), join(old, 'local'), { recursive: true });
    mkdirSync(join(old, 'migrations'));
    for (const { file } of released.migrations)
      cpSync(join(SUPABASE_DIR, 'migrations', file), join(old, 'migrations', file));
    // Opened as `npm start` opens it: the migrations since the release are applied here.
    store = await (kind.name === 'postgres' ? releasedPostgres(old) : releasedPglite(old));
    app = createApp({
      store,
      localAuth: store,
      jwtSecret: TEST_SECRET,
      evidenceThreshold: 0.35,
      embedModel: 'test-model',
      retrieval: { mode: 'vector' },
      streaming: { deltaDelayMs: 0 },
      rateLimit: { limit: 20, windowSeconds: 3600 },
    });
    const now = Math.floor(Date.now() / 1000);
    visitor = await sign(
      { sub: facts.visitor_user_id, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 600 },
      TEST_SECRET,
      'HS256',
    );
    const session = await json<{ access_token: string }>(
      app.request('/api/admin/session', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ link_token: await createLinkToken(TEST_SECRET) }),
      }),
    );
    admin = session.access_token;
  }, 180_000);
  afterAll(async () => {
    await store?.close();
  });

  it('keeps the released migrations doing what they did, and applies every later one', () => {
    for (const { file, digest } of released.migrations) {
      // A released migration is never edited (its comments may be): a changed function is a new migration
      // that redefines it, or databases created before would keep the old one.
      expect(
        migrationDigest(readFileSync(join(SUPABASE_DIR, 'migrations', file), 'utf8')),
        `${file} changed since ${RELEASE}`,
      ).toBe(digest);
    }
    const releasedFiles = released.migrations.map((m) => m.file);
    expect(store.migrations.applied).toEqual(current.filter((f) => !releasedFiles.includes(f)));
    expect(store.migrations.skipped).toEqual(releasedFiles);
  });

  it('searches the old chunks by embedding and by words', async () => {
    const vector = await json<SearchResponse>(
      call('/api/search', visitor, { embedding: basis(0), mode: 'vector', top_k: 2 }),
    );
    expect(vector.results[0]).toMatchObject({
      title: 'Billing',
      snippet: expect.stringContaining('Refunds are issued within 14 days'),
    });
    const lexical = await json<SearchResponse>(
      call('/api/search', visitor, { query_text: 'invoices emailed', mode: 'lexical' }),
    );
    expect(lexical.results[0]).toMatchObject({
      title: 'Billing',
      snippet: expect.stringContaining('Invoices are emailed'),
    });
    const hybrid = await json<SearchResponse>(
      call('/api/search', visitor, { embedding: basis(2), query_text: 'staff discount code', mode: 'hybrid' }),
    );
    expect(hybrid.results[0]).toMatchObject({ title: 'Internal' });
  });

  it("reads the visitor's history back, with citations, the refusal and the visitor's ratings", async () => {
    const sessions = await json<{ sessions: SessionSummary[] } | SessionSummary[]>(call('/api/sessions', visitor));
    const list = Array.isArray(sessions) ? sessions : sessions.sessions;
    expect(list.map((s) => s.id)).toContain(facts.session_id);
    const { messages } = await json<SessionDetail>(call(`/api/sessions/${facts.session_id}`, visitor));
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(messages[0]!.content).toBe('How do refunds work?');
    expect(messages[1]).toMatchObject({
      id: facts.answers[0],
      feedback: 1,
      citations: [expect.objectContaining({ section: 'Billing › Refunds' })],
    });
    expect(messages[3]).toMatchObject({ id: facts.answers[1], feedback: -1 });
    expect(messages[5]).toMatchObject({
      id: facts.refusal_message_id,
      refusal: expect.objectContaining({ reason: 'no_evidence' }),
    });
  });

  it("keeps the admin, the admin's settings and the feedback with its comment", async () => {
    const me = await json<{ user_id: string }>(call('/api/admin/me', admin));
    const { rows } = await store.db.query<{ user_id: string }>('select distinct user_id from auth.admin_link_uses');
    expect(rows.map((r) => r.user_id)).toEqual([me.user_id]); // the admin who signed in before is the same one
    const settings = await json<Settings>(call('/api/admin/settings', admin));
    expect(settings).toMatchObject({ ...facts.settings, evidence_threshold_source: 'admin', greeting_source: 'admin' });
    const down = await json<{ items: { message_id: string; rating: number; comment: string | null }[] }>(
      call('/api/admin/conversations?rating=down', admin),
    );
    expect(down.items).toEqual([
      expect.objectContaining({ message_id: facts.answers[1], rating: -1, comment: 'Which day of the month?' }),
    ]);
  });

  it('answers a new question in the old session, from the old chunks, and keeps it', async () => {
    const body = question(basis(0), 'Are annual plans refunded?', { session_id: facts.session_id });
    const answer = await json<ChatAnswer>(call('/api/chat', visitor, body));
    expect(answer).toMatchObject({ type: 'answer', session_id: facts.session_id });
    expect(answer.citations[0]).toMatchObject({ section: 'Billing › Refunds' });
    const { messages } = await json<SessionDetail>(call(`/api/sessions/${facts.session_id}`, visitor));
    expect(messages).toHaveLength(8);
    expect(messages.at(-1)).toMatchObject({ id: answer.answer_message_id, role: 'assistant' });
    expect(
      (await call('/api/feedback', visitor, { message_id: answer.answer_message_id, rating: 1 })).status,
    ).toBeLessThan(300);
  });
});
