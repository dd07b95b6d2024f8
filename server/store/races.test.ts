/**
 * Races a real database allows: two transactions at once, as two servers (two pools on one PostgreSQL
 * database) or two requests of one server make them. The rules must hold in SQL itself — unique keys,
 * `on conflict`, row and advisory locks — since PGlite, one connection, never runs two at once. On PGlite the
 * same calls run too (queued), so both stores keep the same contract. PostgreSQL needs KB_TEST_DATABASE_URL
 * (server/testing/pg.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IngestSlot } from '../console/ingest-slot.ts';
import { startSyncSchedule } from '../runtime/node/sync-schedule.ts';
import { describeStores } from '../testing/pg.ts';
import { basis } from '../testing/vectors.ts';
import { startReceiver } from '../testing/webhook-receiver.ts';
import { createWebhooks, fetchPost } from '../webhooks/dispatcher.ts';
import { newAnswerWriteKey } from './answer-key.ts';
import { openPostgresStore } from './postgres.ts';
import type { OpenStore } from './sql-store.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeStores('races between two servers on one database', (kind) => {
  const key = newAnswerWriteKey();
  /** Server A's and server B's stores: two pools on one PostgreSQL database; on PGlite the one store. */
  let a: OpenStore;
  let b: OpenStore;
  beforeAll(async () => {
    a = await kind.open({ answerWriteKey: key });
    const url = (a as OpenStore & { url?: string }).url;
    b = url ? await openPostgresStore(url, { answerWriteKey: key }) : a;
  });
  afterAll(async () => {
    if (b && b !== a) await b.close();
    await a?.close();
  });

  it('the same message_id sent to both servers at once is one turn', async () => {
    const claims = { sub: await a.createAnonymousUser(), role: 'authenticated' };
    const turn = { message_id: crypto.randomUUID(), content: 'Refunds?', title: 'Refunds?' };
    const [x, y] = await Promise.all([a.beginTurn(claims, turn), b.beginTurn(claims, turn)]);
    expect(x.session_id).toBe(y.session_id);
    expect([x.is_new, y.is_new].filter(Boolean)).toHaveLength(1);
    const { rows } = await a.db.query<{ n: number }>('select count(*)::int as n from chat_messages where id = $1', [
      turn.message_id,
    ]);
    expect(rows[0]!.n).toBe(1);
    expect((await a.getMessages(claims, x.session_id)).filter((m) => m.role === 'user')).toHaveLength(1);
  });

  it('25 rate-limit hits at once, spread over both servers, allow exactly the limit', async () => {
    const claims = { sub: await a.createAnonymousUser(), role: 'authenticated' };
    const hits = await Promise.all(
      Array.from({ length: 25 }, (_, i) => (i % 2 ? a : b).rateLimitHit(claims, 'api', 10, 60)),
    );
    expect(hits.filter((h) => h.allowed)).toHaveLength(10);
    expect(hits.filter((h) => !h.allowed)).toHaveLength(15);
  });

  it('two ingestions of one document at once leave one document with one version of its chunks', async () => {
    const doc = (text: string, checksum: string) => ({
      source: 'race.md',
      name: 'Race',
      meta: {},
      checksum,
      model: 'm',
      chunks: [
        { content: `${text} one`, meta: {}, embedding: basis(0) },
        { content: `${text} two`, meta: {}, embedding: basis(1) },
      ],
    });
    await Promise.all([a.ingestDocument(doc('first', '1')), b.ingestDocument(doc('second', '2'))]);
    const { rows } = await a.db.query<{ documents: number; chunks: number; versions: number }>(
      `select count(distinct d.id)::int as documents, count(c.id)::int as chunks,
              count(distinct split_part(c.content, ' ', 1))::int as versions
       from kb_documents d join kb_chunks c on c.document_id = d.id where d.source = 'race.md'`,
    );
    expect(rows[0]).toEqual({ documents: 1, chunks: 2, versions: 1 });
  });

  it('two servers ticking their sync schedules at once make one sync run', async () => {
    const runs: string[] = [];
    // Each server has its slot; on PGlite, one process, the two schedules share the process's one.
    const shared = new IngestSlot(() => a.tryDatabaseLock('ingest'));
    const schedule = (store: OpenStore, name: string) =>
      startSyncSchedule({
        intervalSeconds: 3600,
        slot: a === b ? shared : new IngestSlot(() => store.tryDatabaseLock('ingest')),
        ranSince: (seconds) => store.scheduledSyncSince(seconds),
        log: () => {},
        run: async () => {
          runs.push(name);
          const id = await store.startSyncRun('https://example.com/sitemap.xml', 'schedule');
          await sleep(300);
          await store.finishSyncRun(
            id,
            { added: 0, updated: 0, unchanged: 0, removed: 0, failed: 0, chunks: 0, bytes: 0 },
            [],
          );
          return [];
        },
      });
    const sa = schedule(a, 'A');
    const sb = schedule(b, 'B');
    try {
      // At once, and once more each right after: the second round finds the run recorded.
      const first = await Promise.all([sa.tick(), sb.tick()]);
      const second = await Promise.all([sa.tick(), sb.tick()]);
      expect([...first, ...second].sort()).toEqual(['ran', 'skipped', 'skipped', 'skipped']);
      expect(runs).toHaveLength(1);
      const { rows } = await a.db.query<{ n: number }>(
        "select count(*)::int as n from kb_sync_runs where trigger = 'schedule'",
      );
      expect(rows[0]!.n).toBe(1);
    } finally {
      sa.stop();
      sb.stop();
    }
  });

  it('two first sign-in links exchanged at once make one admin user', async () => {
    const [x, y] = await Promise.all([
      a.consumeAdminLink(crypto.randomUUID()),
      b.consumeAdminLink(crypto.randomUUID()),
    ]);
    expect(x).not.toBeNull();
    expect(y).toBe(x);
    // And one link exchanged on both at once signs in once.
    const jti = crypto.randomUUID();
    const both = await Promise.all([a.consumeAdminLink(jti), b.consumeAdminLink(jti)]);
    expect(both.filter((u) => u !== null)).toEqual([x]);
  });

  it('one webhook event emitted by both servers at once is delivered once', async () => {
    const receiver = await startReceiver();
    const url = receiver.url;
    const dispatcher = (store: OpenStore) =>
      createWebhooks({
        target: async () => ({ url, secret: 'a-signing-secret-of-thirty-two-chars' }),
        post: fetchPost,
        allowLoopback: true,
        log: () => {},
        claim: (id) => store.claimWebhookEvent!(id),
      });
    const [da, db] = [dispatcher(a), dispatcher(b)];
    const data = { message_id: crypto.randomUUID() } as never;
    try {
      const shared = `evt_${crypto.randomUUID()}`;
      da.emit('question.refused', data, { id: shared });
      db.emit('question.refused', data, { id: shared });
      // Another event, on one server only, still goes out; so does one without an id of the caller's.
      const other = `evt_${crypto.randomUUID()}`;
      db.emit('question.refused', data, { id: other });
      da.emit('answer.rated', data);
      expect(await da.settle(10_000)).toBe(true);
      expect(await db.settle(10_000)).toBe(true);
      const received = receiver.deliveries.map((d) => String(d.headers['kb-delivery']));
      expect(received.filter((id) => id === shared)).toHaveLength(1);
      expect(received.filter((id) => id === other)).toHaveLength(1);
      expect(received).toHaveLength(3);
      expect(da.stats().delivered + db.stats().delivered).toBe(3);
    } finally {
      await receiver.close();
    }
  });
});
