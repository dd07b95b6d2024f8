/**
 * Graceful shutdown, with the real server as a child process: SIGTERM/SIGINT stop
 * accepting, open streams finish within KB_SHUTDOWN_GRACE_MS and their answers are stored, PGlite is closed
 * cleanly (its control file says "shut down", so the next start recovers nothing); past the bound the
 * remaining streams are cut but still stored; a second signal exits at once.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteStore } from '../../server/store/pglite.ts';
import { ask, DEMO_QUESTIONS, seededDataDir, signIn, startServer, type Asked, type ServerChild } from './process.ts';

let dir: string;
const running: ServerChild[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kb-shutdown-'));
});
afterAll(async () => {
  for (const server of running) server.process.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/**
 * The cluster state in Postgres's control file (`DBState`: 1 = shut down, 6 = in production), the fourth
 * 32-bit field of ControlFileData. A clean close leaves 1; a process that died leaves 6.
 */
async function clusterState(dataDir: string): Promise<'shut down' | 'in production' | number> {
  const state = (await readFile(join(dataDir, 'global', 'pg_control'))).readUInt32LE(16);
  return state === 1 ? 'shut down' : state === 6 ? 'in production' : state;
}

/** Opens a TCP connection to the server: 'connected' or the error code. */
function connect(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port) });
    socket.once('connect', () => (socket.destroy(), resolve('connected')));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/**
 * Sends `signals` to the server while it is stopped (SIGSTOP … SIGCONT): they are all taken before the server
 * can move on by even one event-loop turn — before an open answer finishes, however loaded the machine is.
 */
function whileFrozen(server: ServerChild, ...signals: NodeJS.Signals[]): void {
  server.process.kill('SIGSTOP');
  for (const signal of signals) server.process.kill(signal);
  server.process.kill('SIGCONT');
}

/** A grace period no test lasts: the drain ends because the answers finished, never because time ran out. */
const UNBOUNDED_GRACE_MS = '600000';

/** Starts `count` questions at once; `signal` is sent when the second answer starts streaming. */
async function askThenSignal(
  server: ServerChild,
  count: number,
  signal: () => void,
): Promise<{ asked: Asked[]; ids: string[] }> {
  const token = await signIn(server.url);
  const ids = Array.from({ length: count }, () => randomUUID());
  let started = 0;
  const asked = await Promise.all(
    ids.map((id, i) =>
      ask(server.url, token, { message: DEMO_QUESTIONS[i % DEMO_QUESTIONS.length]!, message_id: id }, (event) => {
        if (event === 'answer_start' && ++started === 2) signal();
      }),
    ),
  );
  return { asked, ids };
}

/** Question id → its stored answers' ids, read from the (stopped) server's data directory. */
async function storedAnswers(dataDir: string, ids: string[]): Promise<Map<string, string[]>> {
  const store = await openPgliteStore(dataDir);
  try {
    const { rows } = await store.db.query<{ id: string; answers: string[] }>(
      `select u.id, coalesce(array_agg(a.id::text) filter (where a.id is not null), '{}') as answers
       from chat_messages u left join chat_messages a on a.reply_to = u.id
       where u.id = any($1::uuid[]) group by u.id`,
      [ids],
    );
    return new Map(rows.map((r) => [r.id, r.answers]));
  } finally {
    await store.close();
  }
}

describe('graceful shutdown', () => {
  it('SIGTERM: refuses new requests, lets open answers finish and stores them, closes the database cleanly, exits 0', async () => {
    const dataDir = await seededDataDir(join(dir, 'term'));
    const server = await startServer(dataDir, { KB_MAX_WAIT_MS: '60000', KB_SHUTDOWN_GRACE_MS: UNBOUNDED_GRACE_MS });
    running.push(server);
    let refused: Promise<string> | null = null;
    const { asked, ids } = await askThenSignal(server, 20, () => {
      whileFrozen(server, 'SIGTERM');
      // A visitor arriving once the server has taken the signal, on a new connection: the listener is closed.
      refused = server.waitFor(/SIGTERM: stopping/).then(() => connect(server.url));
    });
    const exit = await server.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(await refused).toBe('ECONNREFUSED');
    expect(server.output()).toMatch(/SIGTERM: stopping/);
    expect(server.output()).toMatch(/all finished; database closed/);

    // Every question that was inside the server finished its answer on the wire, and it is stored.
    const stored = await storedAnswers(dataDir, ids);
    for (const [i, result] of asked.entries()) {
      // Turned away: a 503 on a connection that was open, or — for a connection the kernel had queued but the
      // server had not yet read a request from when the listener closed — a reset before any response (fetch
      // fails with no status). Either way the question never got inside, so nothing may be stored for it.
      if (result.status === 503 || (result.status === null && result.events.length === 0)) {
        expect(
          stored.has(ids[i]!),
          `question ${i} was turned away (${result.status ?? result.error}): nothing stored`,
        ).toBe(false);
        continue;
      }
      expect(result.error, `question ${i}`).toBeUndefined();
      expect(result.events.at(-1), `question ${i}`).toBe('answer_end');
      expect(stored.get(ids[i]!)).toEqual([result.answerId]);
    }
    expect(asked.filter((a) => a.answerId !== null).length).toBeGreaterThanOrEqual(2);
    expect(await clusterState(dataDir)).toBe('shut down');
  });

  it('past KB_SHUTDOWN_GRACE_MS the open streams are cut, and their answers are still stored once', async () => {
    const dataDir = await seededDataDir(join(dir, 'bound'));
    const server = await startServer(dataDir, { KB_MAX_WAIT_MS: '60000', KB_SHUTDOWN_GRACE_MS: '1' });
    running.push(server);
    // Taken while the second answer is still open, so at least it is cut.
    const { asked, ids } = await askThenSignal(server, 20, () => whileFrozen(server, 'SIGINT'));
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output()).toMatch(/cut at 0.001 s \(their answers are stored\)/);

    const cut = asked.filter((a) => a.events.includes('answer_start') && a.answerId === null);
    expect(cut.length).toBeGreaterThan(0);
    const stored = await storedAnswers(dataDir, ids);
    for (const [i, result] of asked.entries()) {
      if (!result.events.includes('answer_start')) continue;
      // Started before the cut: stored exactly once, whether or not its end reached the client.
      expect(stored.get(ids[i]!), `question ${i}`).toHaveLength(1);
      if (result.answerId) expect(stored.get(ids[i]!)).toEqual([result.answerId]);
    }
    for (const answers of stored.values()) expect(answers.length).toBeLessThanOrEqual(1);
    expect(await clusterState(dataDir)).toBe('shut down');
  });

  it('a second signal exits at once, and the next start recovers', async () => {
    const dataDir = await seededDataDir(join(dir, 'twice'));
    // The grace never runs out in this test, so exit code 143 (not 0) is the proof that the second signal,
    // not the end of the drain or of the grace, ended the process.
    const server = await startServer(dataDir, { KB_MAX_WAIT_MS: '60000', KB_SHUTDOWN_GRACE_MS: UNBOUNDED_GRACE_MS });
    running.push(server);
    const { ids } = await askThenSignal(server, 60, () => {
      whileFrozen(server, 'SIGTERM');
      // The second one once the first was taken (two sent back to back may arrive as one), delivered while the
      // server is frozen mid-drain, so it is handled before the drain can finish even on a loaded machine.
      void server.waitFor(/SIGTERM: stopping/).then(() => whileFrozen(server, 'SIGTERM'));
    });
    const exit = await server.exited;
    expect(exit).toEqual({ code: 143, signal: null });
    expect(server.output()).toMatch(/SIGTERM again: exiting now/);
    expect(await clusterState(dataDir)).toBe('in production'); // not closed: the next start recovers

    const again = await startServer(dataDir);
    running.push(again);
    again.process.kill('SIGTERM');
    const stopped = await again.exited;
    expect(stopped, again.output()).toEqual({ code: 0, signal: null });
    for (const answers of (await storedAnswers(dataDir, ids)).values()) expect(answers.length).toBeLessThanOrEqual(1);
  });
});
