/**
 * `npx tsx scripts/bench/crowd.ts --servers http://127.0.0.1:18300,http://127.0.0.1:18301 [--visitors 200]
 *   [--questions 3]`
 *
 * Many visitors at once against Node servers already running (e.g. two on one DATABASE_URL, sharing
 * KB_JWT_SECRET and KB_ANSWER_WRITE_KEY, started with KB_SIGNUP_LIMIT=0 and a KB_RATE_LIMIT above
 * --questions): visitor i signs in on server i mod N and asks there, as the widget asks — the question
 * embedded by the test-double model, the answer streamed and read to its end (concurrency.ts, the scale
 * bench's crowd); a 503 waits its Retry-After. Prints the run as JSON with the machine's 1-minute load
 * average before and after: on a shared machine a latency without it cannot be compared.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { concurrencyRun } from './concurrency.ts';
import { embeddedQuestions } from './questions.ts';

const { values } = parseArgs({
  options: {
    servers: { type: 'string' },
    visitors: { type: 'string', default: '200' },
    questions: { type: 'string', default: '3' },
  },
});
const servers = (values.servers ?? '').split(',').filter(Boolean);
if (servers.length === 0) throw new Error('--servers is required');
const { questions } = await embeddedQuestions(200);
const load = () => Math.round(loadavg()[0]! * 10) / 10;
const before = load();
const run = await concurrencyRun(servers, questions, Number(values.visitors), Number(values.questions));
console.log(JSON.stringify({ servers: servers.length, load_1m: [before, load()], ...run }, null, 1));
