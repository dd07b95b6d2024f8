/**
 * `npx tsx scripts/bench/cpu-cost.ts --database-url postgres://…/kb_bench_100000 [--questions 200] [--from DIR] [--port N]`
 *
 * What one answer costs in CPU time, on the Node server and in PostgreSQL, for a capacity plan. Wall-clock
 * latencies on a shared machine say mostly how long a request waited for a core; CPU time (Linux
 * /proc/<pid>/stat: user + system) says what it used, whatever the load. The real server is started on the
 * database (a bench database from `npm run bench -- --database postgres`), warmed up, then asked the bench
 * questions one at a time through /api/chat and /api/search (hybrid); the CPU time of the server process and
 * of every PostgreSQL backend connected to that database is read before and after. Linux only.
 *
 * `--from DIR` runs the server of another checkout (its root directory, e.g. `git archive <commit> | tar -x`
 * beside a node_modules link), so two commits can be measured one after the other on the same database;
 * `--port` puts the server on that port instead of a free one.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { chatLatency, searchLatency } from './latency.ts';
import { embeddedQuestions } from './questions.ts';
import { startServer } from './server.ts';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    questions: { type: 'string', default: '200' },
    from: { type: 'string' },
    port: { type: 'string' },
  },
});
const url = values['database-url'];
if (!url) throw new Error('--database-url is required (a bench database: kb_bench_<scale>)');
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** user + system CPU seconds of a process, or 0 when it is gone. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!stat) return 0;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime, stime (fields 14, 15)
}

const admin = new pg.Client({ connectionString: url });
await admin.connect();
const backends = async (): Promise<Map<number, number>> => {
  const { rows } = await admin.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
  );
  return new Map(await Promise.all(rows.map(async (r) => [r.pid, await cpuSeconds(r.pid)] as [number, number])));
};
const databaseCpu = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, s]) => sum + s - (before.get(pid) ?? 0), 0);

const { questions, warmUp } = await embeddedQuestions(Number(values.questions));
const dataDir = await mkdtemp(path.join(tmpdir(), 'kb-cpu-cost-'));
const server = await startServer(
  dataDir,
  300_000,
  { DATABASE_URL: url, ...(values.port ? { PORT: values.port } : {}) },
  values.from ? path.resolve(values.from) : undefined,
);
const load = () => Math.round(loadavg()[0]! * 10) / 10;
try {
  await chatLatency(server.url, warmUp, []);
  const measure = async (what: string, run: () => Promise<{ requests: number }>) => {
    const [node0, db0, load0, t0] = [await cpuSeconds(server.pid), await backends(), load(), performance.now()];
    const { requests } = await run();
    const [node1, db1] = [await cpuSeconds(server.pid), await backends()];
    const wall = (performance.now() - t0) / 1000;
    return {
      what,
      requests,
      node_cpu_ms_per_request: Math.round(((node1 - node0) / requests) * 10_000) / 10,
      database_cpu_ms_per_request: Math.round((databaseCpu(db0, db1) / requests) * 10_000) / 10,
      wall_ms_per_request: Math.round((wall / requests) * 10_000) / 10,
      load_1m: [load0, load()],
    };
  };
  const results = [
    await measure('chat (hybrid retrieval, extractive answer)', async () => {
      const chat = await chatLatency(server.url, questions, []);
      return { requests: chat.questions };
    }),
    await measure('search, hybrid', async () => {
      const search = await searchLatency(server.url, questions, [], 'hybrid');
      return { requests: search.requests };
    }),
  ];
  console.log(JSON.stringify({ database: new URL(url).pathname.slice(1), results }, null, 1));
} finally {
  await server.stop();
  await admin.end();
  await rm(dataDir, { recursive: true, force: true });
}
