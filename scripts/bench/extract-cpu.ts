/**
 * `npx tsx scripts/bench/extract-cpu.ts --database-url postgres://…/kb_bench_10000 [--rounds 5] [--save FILE]`
 * `npx tsx scripts/bench/extract-cpu.ts --load FILE [--from DIR]`
 *
 * The CPU time of the extractive answer alone (server/chat/extract.ts), per answered bench question: the
 * bench questions are retrieved once from a bench database (as a chat retrieves them, hybrid), then the
 * answers are built `--rounds` times from those passages and the process's own CPU time (user + system)
 * is divided by their number. CPU time rather than wall time, so a busy machine does not change the result
 * much. To compare two commits on the same passages: `--save` them once, then `--load` them and time the
 * extract.ts of another checkout with `--from` (its root directory, e.g. `git archive <commit> server protocol`
 * unpacked beside a node_modules link) — the older commit may predate the PostgreSQL store.
 */
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_EVIDENCE_THRESHOLD } from '../../server/config/defaults.ts';
import { retrieve } from '../../server/retrieval/index.ts';
import { openPostgresStore } from '../../server/store/postgres.ts';
import type { ChunkMatch } from '../../server/store/types.ts';
import { embeddedQuestions } from './questions.ts';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    rounds: { type: 'string', default: '5' },
    save: { type: 'string' },
    load: { type: 'string' },
    from: { type: 'string' },
  },
});
type Answered = { question: string; chunks: ChunkMatch[] };
const answered: Answered[] = values.load
  ? JSON.parse(await readFile(values.load, 'utf8'))
  : await retrieved(values['database-url']);
if (values.save) await writeFile(values.save, JSON.stringify(answered));
const root = values.from ? path.resolve(values.from) : path.resolve(import.meta.dirname, '../..');
const { extractAnswer } = (await import(
  path.join(root, 'server/chat/extract.ts')
)) as typeof import('../../server/chat/extract.ts');

/** The bench questions a chat answers, with the passages retrieval gives them. */
async function retrieved(url: string | undefined): Promise<Answered[]> {
  if (!url) throw new Error('--database-url (a bench database: kb_bench_<scale>) or --load is required');
  const store = await openPostgresStore(url);
  const { questions } = await embeddedQuestions(200);
  const claims = { sub: randomUUID(), role: 'authenticated', aud: 'authenticated' };
  const out: Answered[] = [];
  try {
    for (const q of questions) {
      const input = { claims, question: q.text, embedding: q.embedding };
      const found = await retrieve(store, input, { evidenceThreshold: DEFAULT_EVIDENCE_THRESHOLD });
      if (found.kind === 'answer') out.push({ question: q.text, chunks: found.chunks });
    }
  } finally {
    await store.close();
  }
  return out;
}
for (const a of answered) extractAnswer(a.question, a.chunks); // warm up
const rounds = Number(values.rounds);
const load0 = loadavg()[0]!;
const before = process.cpuUsage();
for (let r = 0; r < rounds; r++) for (const a of answered) extractAnswer(a.question, a.chunks);
const used = process.cpuUsage(before);
const perAnswer = (used.user + used.system) / 1000 / (rounds * answered.length);
console.log(
  JSON.stringify({
    extract_from: root,
    answers: answered.length,
    rounds,
    extract_cpu_ms_per_answer: Math.round(perAnswer * 100) / 100,
    load_1m: [Math.round(load0 * 10) / 10, Math.round(loadavg()[0]! * 10) / 10],
  }),
);
