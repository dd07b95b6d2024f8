/**
 * `npx tsx scripts/bench/chat-steps.ts --data <PGlite data dir> [--questions 200]`
 *
 * Where a chat's server time goes on the embedded database, step by step: on PGlite the database runs on the
 * server's own thread, so a step's CPU time (`process.cpuUsage()`, user + system, which a busy machine
 * changes much less than wall time) is what it adds to the answer's wait. The data directory is copied
 * first (the bench KB of `npm run bench -- --scales 10000 --keep` is `<kept dir>/10k/data`), then each bench
 * question goes through the store calls a chat makes, in its order — settings, rate limit, recording the
 * question, retrieval, extraction (answers), storing the answer (after the first byte) or, for a refusal,
 * the empty-KB check — after 5 warm-up questions. Prints the median and mean CPU ms of each step.
 */
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { extractAnswer } from '../../server/chat/extract.ts';
import { DEFAULT_EVIDENCE_THRESHOLD } from '../../server/config/defaults.ts';
import { retrieve } from '../../server/retrieval/index.ts';
import { openPgliteStore } from '../../server/store/pglite.ts';
import { embeddedQuestions } from './questions.ts';

const { values } = parseArgs({ options: { data: { type: 'string' }, questions: { type: 'string', default: '200' } } });
if (!values.data) throw new Error('--data is required: a PGlite data directory (kept by npm run bench -- --keep)');
const copy = await mkdtemp(path.join(tmpdir(), 'kb-chat-steps-'));
await cp(values.data, copy, { recursive: true });
const store = await openPgliteStore(copy);
const cpu: Record<string, number[]> = {};
let counting = false;
async function step<T>(name: string, run: () => Promise<T> | T): Promise<T> {
  const before = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(before);
  if (counting) (cpu[name] ??= []).push((used.user + used.system) / 1000);
  return result;
}
try {
  const { questions, warmUp } = await embeddedQuestions(Number(values.questions));
  const claims = { sub: await store.createAnonymousUser(), role: 'authenticated', aud: 'authenticated' };
  const load = loadavg()[0]!;
  for (const [i, q] of [...warmUp, ...questions].entries()) {
    counting = i >= warmUp.length;
    await step('settings', () => store.getSettings());
    await step('rate limit', () => store.rateLimitHit(claims, 'api', 1_000_000, 60));
    const messageId = randomUUID();
    const turn = await step('record the question', () =>
      store.beginTurn(claims, { message_id: messageId, content: q.text, title: q.text.slice(0, 60) }),
    );
    const input = { claims, question: q.text, embedding: q.embedding };
    const found = await step('retrieval', () =>
      retrieve(store, input, { evidenceThreshold: DEFAULT_EVIDENCE_THRESHOLD }),
    );
    if (found.kind === 'answer') {
      const answer = await step('extraction', () => extractAnswer(q.text, found.chunks, {}));
      await step('store the answer (after the first byte)', () =>
        store.finishTurn(claims, {
          session_id: turn.session_id,
          reply_to: messageId,
          content: answer.text,
          citations: answer.citations,
          meta: { kind: 'answer' },
        }),
      );
    } else await step('empty-KB check (refusals)', () => store.hasDocuments());
  }
  const sorted = (v: number[]) => [...v].sort((a, b) => a - b);
  console.log(`CPU ms per step, ${questions.length} questions, load ${load.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`);
  for (const [name, v] of Object.entries(cpu)) {
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    console.log(
      `${name.padEnd(40)} n ${String(v.length).padStart(3)}  median ${sorted(v)[v.length >> 1]!.toFixed(2)}  mean ${mean.toFixed(2)}`,
    );
  }
} finally {
  await store.close();
  await rm(copy, { recursive: true, force: true });
}
