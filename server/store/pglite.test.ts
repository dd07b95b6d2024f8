/**
 * The embedded store on real PGlite + pgvector: migrations applied once and recorded, a persisted data
 * directory reopens with its data, retrieval honours order/limit/threshold and the document filters, and
 * row-level security is enforced by Postgres itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basis, withSimilarity } from '../testing/vectors.ts';
import { localAnswerWriteKey } from '../runtime/node/answer-key.ts';
import { ANSWER_WRITE_KEY_MIN_CHARS, answerWriteKeyHash, newAnswerWriteKey } from './answer-key.ts';
import { describeStores } from '../testing/pg.ts';
import { openPgliteStore, type PgliteStore } from './pglite.ts';
import type { OpenStore } from './sql-store.ts';

const chunk = (content: string, embedding: number[]) => ({ content, meta: {}, embedding });

describe('persisted data directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kb-store-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('applies every migration once, records it, and keeps data across reopen', async () => {
    const first = await openPgliteStore(dir);
    expect(first.migrations.applied.length).toBeGreaterThanOrEqual(6);
    expect(first.migrations.skipped).toEqual([]);
    await first.ingestDocument({
      source: 'a.md',
      name: 'A',
      meta: {},
      checksum: 'c',
      model: 'm',
      chunks: [chunk('alpha', basis(0))],
    });
    await first.close();

    const again = await openPgliteStore(dir);
    expect(again.migrations.applied).toEqual([]);
    expect(again.migrations.skipped).toEqual(first.migrations.applied);
    const { rows } = await again.db.query<{ version: string }>(
      'select version from supabase_migrations.schema_migrations order by 1',
    );
    expect(rows.map((r) => r.version)).toEqual(first.migrations.applied.map((f) => f.split('_')[0]));
    expect(await again.kbStats()).toEqual({ documents: 1, ready_documents: 1, chunks: 1, embeddings: 1 });
    await again.close();
  });
});

describe('the answer write key', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kb-store-key-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** A question and its answer through the store, as the chat route stores them. */
  async function answer(store: PgliteStore): Promise<string> {
    const claims = { sub: await store.createAnonymousUser(), role: 'authenticated' };
    const messageId = crypto.randomUUID();
    const { session_id } = await store.beginTurn(claims, {
      message_id: messageId,
      content: 'Refunds?',
      title: 'Refunds?',
    });
    return store.finishTurn(claims, {
      session_id,
      reply_to: messageId,
      content: 'Within 14 days.',
      citations: [],
      meta: { kind: 'answer' },
    });
  }

  it('npm start keeps one in KB_DATA_DIR, stores its hash (never the key) and answers are stored with it, across restarts', async () => {
    const key = await localAnswerWriteKey(dir);
    expect(key.length).toBeGreaterThanOrEqual(ANSWER_WRITE_KEY_MIN_CHARS);
    expect(await localAnswerWriteKey(dir)).toBe(key);
    for (let run = 0; run < 2; run++) {
      const store = await openPgliteStore(dir, { answerWriteKey: key });
      try {
        expect(await answer(store)).toMatch(/^[0-9a-f-]{36}$/);
        const { rows } = await store.db.query<{ key_hash: string }>('select key_hash from kb_answer_write_key');
        expect(rows).toEqual([{ key_hash: await answerWriteKeyHash(key) }]);
        expect(rows[0]!.key_hash).not.toContain(key);
      } finally {
        await store.close();
      }
    }
  });

  it('is left alone by a store opened without one for answers (the ingestion CLI)', async () => {
    const key = await localAnswerWriteKey(dir);
    const cli = await openPgliteStore(dir, { answerWriteKey: null });
    try {
      expect((await cli.db.query('select key_hash from kb_answer_write_key')).rows).toEqual([
        { key_hash: await answerWriteKeyHash(key) },
      ]);
      await expect(answer(cli)).rejects.toMatchObject({ kind: 'unavailable' });
    } finally {
      await cli.close();
    }
  });

  it("is the last opener's: the database refuses answers written with any other key", async () => {
    const store = await openPgliteStore(null, { answerWriteKey: newAnswerWriteKey() });
    try {
      expect(await answer(store)).toMatch(/^[0-9a-f-]{36}$/);
      // Another process's key replaces the hash; this store's answers are then refused — reported as an
      // unavailable database (a 503 and a log line naming the key), not as the visitor's fault.
      await store.db.query('select kb_set_answer_write_key($1)', [await answerWriteKeyHash(newAnswerWriteKey())]);
      await expect(answer(store)).rejects.toMatchObject({
        kind: 'unavailable',
        message: expect.stringMatching(/answer write key is missing or wrong/),
      });
    } finally {
      await store.close();
    }
  });
});

// The same contract on both SQL stores (server/testing/pg.ts: PostgreSQL runs with KB_TEST_DATABASE_URL, and
// always in CI).
describeStores('retrieval and security', (kind) => {
  let store: OpenStore;
  let claims: { sub: string; role: string };
  beforeAll(async () => {
    store = await kind.open();
    claims = { sub: await store.createAnonymousUser(), role: 'authenticated' };
  });
  afterAll(() => store?.close());

  it('match_chunks returns the best chunks first, at most match_count, none below the threshold', async () => {
    await store.ingestDocument({
      source: 'many.md',
      name: 'Many',
      meta: {},
      checksum: 'c',
      model: 'm',
      // Chunk i has similarity (i+1)/10 with the query basis(0)-ish vector below.
      chunks: Array.from({ length: 9 }, (_, i) => chunk(`chunk ${i}`, withSimilarity(0, (i + 1) / 10, 10 + i))),
    });
    const matches = await store.matchChunks(claims, basis(0), 0.35, 3);
    expect(matches.map((m) => m.content)).toEqual(['chunk 8', 'chunk 7', 'chunk 6']);
    const thresholded = await store.matchChunks(claims, basis(0), 0.75, 5);
    expect(thresholded.map((m) => m.content)).toEqual(['chunk 8', 'chunk 7']);
  });

  it('re-ingesting a source replaces its chunks and keeps one document', async () => {
    await store.ingestDocument({
      source: 'r.md',
      name: 'R',
      meta: {},
      checksum: '1',
      model: 'm',
      chunks: [chunk('old', basis(50)), chunk('old 2', basis(51))],
    });
    const id = await store.ingestDocument({
      source: 'r.md',
      name: 'R2',
      meta: {},
      checksum: '2',
      model: 'm',
      chunks: [chunk('new', basis(50))],
    });
    const { rows } = await store.db.query<{ content: string }>('select content from kb_chunks where document_id = $1', [
      id,
    ]);
    expect(rows).toEqual([{ content: 'new' }]);
    expect(await store.documentState('r.md', 'm')).toMatchObject({
      status: 'ready',
      checksum: '2',
      stale_embeddings: 0,
    });
    expect(await store.documentState('r.md', 'other-model')).toMatchObject({ stale_embeddings: 1 });
  });

  it('a failed ingestion leaves the previous version intact (one transaction)', async () => {
    await store.ingestDocument({
      source: 'f.md',
      name: 'F',
      meta: {},
      checksum: '1',
      model: 'm',
      chunks: [chunk('kept', basis(60))],
    });
    await expect(
      store.ingestDocument({
        source: 'f.md',
        name: 'F',
        meta: {},
        checksum: '2',
        model: 'm',
        chunks: [chunk('bad', [1, 2, 3])],
      }),
    ).rejects.toThrow();
    expect(await store.documentState('f.md', 'm')).toMatchObject({ status: 'ready', checksum: '1' });
    const { rows } = await store.db.query<{ content: string }>(
      "select c.content from kb_chunks c join kb_documents d on d.id = c.document_id where d.source = 'f.md'",
    );
    expect(rows).toEqual([{ content: 'kept' }]);
  });

  it('visitors cannot read the knowledge-base tables or call the ingestion function directly', async () => {
    await store.db.exec("select set_config('request.jwt.claims', '{}', false)");
    for (const sql of ['select * from kb_chunks', "select ingest_document('x', 'x', '{}', 'x', 'x', '[]')"]) {
      const rows = await store.db
        .transaction(async (tx) => {
          await tx.exec('set local role authenticated');
          return (await tx.query(sql)).rows;
        })
        .catch((error: Error) => error);
      // RLS without a visitor policy yields no rows; the function is not granted at all.
      if (rows instanceof Error) expect(rows.message).toMatch(/permission denied/);
      else expect(rows).toEqual([]);
    }
  });

  it("a visitor sees only their own sessions: another user's are invisible and cannot be written to", async () => {
    const alice = claims;
    const bob = { sub: await store.createAnonymousUser(), role: 'authenticated' };
    const { session_id: session } = await store.beginTurn(alice, {
      message_id: crypto.randomUUID(),
      content: 'hello',
      title: 'hello',
    });
    const asBob = await store.db.transaction(async (tx) => {
      await tx.query("select set_config('request.jwt.claims', $1, true)", [JSON.stringify(bob)]);
      await tx.exec('set local role authenticated');
      return (await tx.query('select id from chat_sessions')).rows;
    });
    expect(asBob).toEqual([]);
    await expect(
      store.beginTurn(bob, { session_id: session, message_id: crypto.randomUUID(), content: 'x', title: 'x' }),
    ).rejects.toMatchObject({ kind: 'forbidden' });
    // Writing a session directly, even one's own, is refused: visitors hold no INSERT on the chat tables
    // (migration 20261125000000); writes go through chat_begin_turn, which sets user_id itself.
    await expect(
      store.db.transaction(async (tx) => {
        await tx.query("select set_config('request.jwt.claims', $1, true)", [JSON.stringify(bob)]);
        await tx.exec('set local role authenticated');
        await tx.query("insert into chat_sessions (user_id, title) values ($1, 'forged')", [alice.sub]);
      }),
    ).rejects.toThrow(/permission denied for table chat_sessions/);
  });
});
