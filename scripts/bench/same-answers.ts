/**
 * `npx tsx scripts/bench/same-answers.ts --database-url postgres://…/kb_bench_10000 --from <checkout> [--questions 200]`
 *
 * Whether a change of the server's plumbing left its answers alone: the bench questions asked one at a time,
 * through POST /api/chat as one JSON body, of the server of another checkout (`--from`, its root directory)
 * and then of this one, both on the same database; prints how many answers differ in their kind, text,
 * citations, related pages, confidence or refusal reason. Each asks with new message ids, so the turns the
 * first stores do not replay for the second.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { signIn } from './client.ts';
import { embeddedQuestions } from './questions.ts';
import { startServer } from './server.ts';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    from: { type: 'string' },
    questions: { type: 'string', default: '200' },
  },
});
if (!values['database-url'] || !values.from) throw new Error('--database-url and --from are required');
const { questions } = await embeddedQuestions(Number(values.questions));

async function answers(root?: string): Promise<string[]> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'kb-same-answers-'));
  const server = await startServer(dataDir, 300_000, { DATABASE_URL: values['database-url']! }, root);
  try {
    const token = await signIn(server.url);
    const out: string[] = [];
    for (const q of questions) {
      const response = await fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ message_id: randomUUID(), message: q.text, embedding: q.embedding }),
      });
      const a = (await response.json()) as Record<string, unknown>;
      out.push(JSON.stringify([response.status, a.type, a.text, a.citations, a.related, a.confidence, a.reason]));
    }
    return out;
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const before = await answers(path.resolve(values.from));
const after = await answers();
const differ = before.flatMap((a, i) => (a === after[i] ? [] : [questions[i]!.text]));
console.log(
  JSON.stringify({
    questions: questions.length,
    answered: after.filter((a) => a.includes('"answer"')).length,
    differ: differ.length,
    examples: differ.slice(0, 5),
  }),
);
