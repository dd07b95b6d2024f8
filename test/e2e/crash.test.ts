/**
 * Crash consistency of the embedded database, with real processes and `kill -9`:
 *
 * - the server killed while 50 answers are streaming: it starts again on the same data directory, every
 *   answer a client saw finish (`answer_end`) is stored, no question has two answers, and a retry of each
 *   unfinished question (same message id) answers it exactly once;
 * - the ingestion CLI killed in the middle of a large folder: the database opens, every stored document is
 *   whole (ready, checksum, every chunk embedded) and nothing half-written is searchable, and the next run
 *   resumes — the documents already stored are skipped, the rest added; the vector index and the BM25
 *   statistics that the bulk load had deferred are rebuilt by the next server start (and by the next run).
 *
 * Why this holds: a committed transaction has been written to the data directory's files (PGlite's Node
 * file system writes synchronously during the query) before the call returns, and Postgres recovers from
 * its write-ahead log on the next start; `ingest_document` is one transaction per document.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteStore } from '../../server/store/pglite.ts';
import {
  ask,
  DEMO_QUESTIONS,
  seededDataDir,
  signIn,
  spawnScript,
  startServer,
  type Asked,
  type ServerChild,
} from './process.ts';

let dir: string;
const running: ServerChild[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kb-crash-'));
});
afterAll(async () => {
  for (const server of running) server.process.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

async function server(dataDir: string, env: Record<string, string> = {}): Promise<ServerChild> {
  const started = await startServer(dataDir, env);
  running.push(started);
  return started;
}

describe('kill -9 while 50 answers are streaming', () => {
  it('keeps every finished answer, never doubles one, and a retry answers each unfinished question once', async () => {
    const dataDir = await seededDataDir(join(dir, 'answers'));
    // No admission shedding here (KB_MAX_WAIT_MS): every question waits its turn, this is about the crash.
    const env = { KB_MAX_WAIT_MS: '60000' };
    const first = await server(dataDir, env);
    const tokens = await Promise.all(Array.from({ length: 5 }, () => signIn(first.url)));
    const questions = Array.from({ length: 50 }, (_, i) => ({
      token: tokens[i % tokens.length]!,
      body: { message: DEMO_QUESTIONS[i % DEMO_QUESTIONS.length]!, message_id: randomUUID() },
    }));

    // All 50 at once; the kill comes with the first answer_delta after three answers have finished: that
    // stream is mid-answer, others are queued for the database or not yet read.
    let ended = 0;
    let killed = false;
    const onEvent = (event: string) => {
      if (event === 'answer_end') ended += 1;
      if (event !== 'answer_delta' || ended < 3 || killed) return;
      killed = true;
      first.process.kill('SIGKILL');
    };
    const before: Asked[] = await Promise.all(questions.map((q) => ask(first.url, q.token, q.body, onEvent)));
    expect(killed).toBe(true);
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const finished = before.filter((a) => a.answerId !== null);
    const cut = before.filter((a) => a.answerId === null && a.events.includes('answer_start'));
    // The kill really landed mid-stream: some answers were cut after they started.
    expect(cut.length).toBeGreaterThan(0);

    expect(finished.length).toBeGreaterThanOrEqual(3);

    const again = await server(dataDir, env);
    // All retries at once (no KB_MAX_WAIT_MS shedding: they queue): one after another, each waited out its
    // answer's paced deltas (15 ms each) alone, and nothing checked here depends on their order.
    const retried: Asked[] = await Promise.all(
      questions.map((q, i) => (before[i]!.answerId === null ? ask(again.url, q.token, q.body) : before[i]!)),
    );
    // Every unfinished question now has an answer (or its refusal), and a retry of a finished one replays
    // the very answer that was stored before the crash.
    for (const result of retried) expect(result.answerId !== null || result.events[0] === 'json:refusal').toBe(true);
    const done = questions[before.indexOf(finished[0]!)]!;
    const replay = await ask(again.url, done.token, done.body);
    expect(replay).toMatchObject({ answerId: finished[0]!.answerId, text: finished[0]!.text });

    again.process.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
    const store = await openPgliteStore(dataDir);
    try {
      const { rows } = await store.db.query<{ id: string; answers: string[] }>(
        `select u.id, coalesce(array_agg(a.id::text) filter (where a.id is not null), '{}') as answers
         from chat_messages u left join chat_messages a on a.reply_to = u.id
         where u.role = 'user' group by u.id`,
      );
      const byQuestion = new Map(rows.map((r) => [r.id, r.answers]));
      expect(byQuestion.size).toBe(50);
      for (const [i, q] of questions.entries()) {
        const stored = byQuestion.get(q.body.message_id);
        expect(stored, `question ${i}`).toHaveLength(1);
        // The answer a client saw finish — before or after the crash — is the one stored.
        const seen = retried[i]!.answerId;
        if (seen) expect(stored).toEqual([seen]);
      }
      const { rows: strays } = await store.db.query(
        `select 1 from chat_messages where role = 'assistant' and reply_to is null`,
      );
      expect(strays).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('kill -9 in the middle of ingesting a large folder', () => {
  // 100, not the 300 it was: the kill comes at the 10th document stored, and the second run ingested the other
  // 290 at about 0.04 s of CPU each (`scripts/ingest.ts --workers 1` on a fresh data directory: 21.1 s of CPU
  // for 100 of these documents, 17.1 s for one). 100 still leaves 90 to go at the kill, seconds of ingestion
  // on a quiet machine, and is past the 20 documents that make a run defer its vector index (pipeline.ts).
  const DOCUMENTS = 100;

  /** Distinct documents of a few chunks each, so a run takes long enough to be interrupted. */
  async function writeFolder(folder: string): Promise<void> {
    await mkdir(folder, { recursive: true });
    const words =
      'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango'.split(
        ' ',
      );
    await Promise.all(
      Array.from({ length: DOCUMENTS }, (_, i) => {
        const sections = Array.from({ length: 3 }, (_, s) => {
          const sentences = Array.from(
            { length: 12 },
            (_, k) =>
              `Document ${i} section ${s} says ${words[(i + s + k) % words.length]} ${words[(i * 7 + k) % words.length]} item${i}x${k}.`,
          );
          return `## Part ${s}\n\n${sentences.join(' ')}`;
        });
        return writeFile(
          join(folder, `doc-${String(i).padStart(4, '0')}.md`),
          `# Document ${i}\n\n${sections.join('\n\n')}\n`,
        );
      }),
    );
  }

  // Two ingestion runs and a server start: with 300 documents, 50 s in the CI run of add51ad, past the config's
  // 120 s when it shared the CPU with another end-to-end file and other work (a run at a load average of 8–11).
  it('opens afterwards with only whole documents searchable, and the next run resumes', {
    timeout: 300_000,
  }, async () => {
    const folder = join(dir, 'folder');
    const dataDir = join(dir, 'ingest');
    await writeFolder(folder);
    const env = { KB_DATA_DIR: dataDir };

    const first = spawnScript('scripts/ingest.ts', [folder, '--workers', '1'], env);
    await first.waitFor(/\[(\d{2,})\/\d+\] added/); // ≥ 10 documents stored, most still to come
    first.process.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const store = await openPgliteStore(dataDir);
    let storedBefore: number;
    try {
      const { rows } = await store.db.query<{
        source: string;
        status: string;
        checksum: string | null;
        chunks: number;
        embedded: number;
      }>(
        `select d.source, d.status, d.checksum, count(c.id)::int as chunks, count(e.chunk_id)::int as embedded
         from kb_documents d left join kb_chunks c on c.document_id = d.id left join kb_embeddings e on e.chunk_id = c.id
         group by d.id`,
      );
      storedBefore = rows.length;
      expect(storedBefore).toBeGreaterThanOrEqual(10);
      expect(storedBefore).toBeLessThan(DOCUMENTS);
      // Whole or absent: an interrupted document rolled back with its transaction.
      for (const row of rows) {
        expect(row, row.source).toMatchObject({ status: 'ready', checksum: expect.stringMatching(/^[0-9a-f]{64}$/) });
        expect(row.chunks, row.source).toBeGreaterThan(0);
        expect(row.embedded, row.source).toBe(row.chunks);
      }
      // The run died inside its bulk load: the vector index and the statistics are still deferred.
      const { rows: deferred } = await store.db.query<{ name: string }>(
        'select name from kb_deferred_indexes order by name',
      );
      expect(deferred.map((d) => d.name)).toEqual(['kb_embeddings_embedding_hnsw', 'kb_statistics']);
    } finally {
      await store.close();
    }

    // The server opens the same directory, repairs what the bulk load had deferred, and serves.
    const served = await startServer(dataDir);
    running.push(served);
    expect(served.output()).toMatch(/Repaired an interrupted ingestion: rebuilt 2 deferred/);
    served.process.kill('SIGTERM');
    expect((await served.exited).code).toBe(0);

    const second = spawnScript('scripts/ingest.ts', [folder, '--workers', '1', '--json'], env);
    expect((await second.exited).code).toBe(0);
    const summary = JSON.parse(second.stdout()) as {
      added: number;
      unchanged: number;
      updated: number;
      failed: unknown[];
    };
    expect(summary).toMatchObject({ added: DOCUMENTS - storedBefore, unchanged: storedBefore, updated: 0, failed: [] });

    const after = await openPgliteStore(dataDir);
    try {
      const count = async (sql: string) => Number((await after.db.query<{ n: string }>(sql)).rows[0]!.n);
      expect(await count(`select count(*) as n from kb_documents where status = 'ready'`)).toBe(DOCUMENTS);
      expect(await count(`select count(*) as n from kb_deferred_indexes`)).toBe(0);
      expect(await count(`select count(*) as n from pg_indexes where indexname = 'kb_embeddings_embedding_hnsw'`)).toBe(
        1,
      );
      // BM25's statistics match the chunks again (they were recounted, not left as the killed run had them).
      expect(await count(`select chunks as n from kb_corpus_stats`)).toBe(
        await count(`select count(*) as n from kb_chunks`),
      );
    } finally {
      await after.close();
    }
  });
});
