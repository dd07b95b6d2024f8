/**
 * `npm run bench -- fuzz [--seconds 300] [--runs 1000000] [--seed N]`
 *
 * The API fuzz properties of the CI test (server/fuzz.test.ts, server/testing/fuzz.ts) run far longer and
 * with a fresh seed each time (printed, so a failure can be replayed with --seed): generated requests
 * against the real app over an in-memory PGlite with the seeded knowledge base. Stops at the first failure
 * with fast-check's shrunk counterexample and exits 1; otherwise writes <out>/<date>-fuzz.json and .md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createTestApi } from '../../server/testing/api.ts';
import { createFuzzTarget, FUZZ_APP_OVERRIDES, fuzzApi } from '../../server/testing/fuzz.ts';
import { machineInfo } from './report.ts';

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      seconds: { type: 'string', default: '300' },
      runs: { type: 'string', default: '1000000' },
      seed: { type: 'string' },
      out: { type: 'string', default: 'bench-results' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help)
    return console.log(
      'usage: npm run bench -- fuzz [--seconds 300] [--runs 1000000] [--seed N] [--out bench-results]',
    );
  const seconds = Number(values.seconds);
  const numRuns = Number(values.runs);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  console.error(`kb-chat fuzz: seed ${seed}, up to ${numRuns} requests or ${seconds} s`);

  const api = await createTestApi(FUZZ_APP_OVERRIDES);
  const started = performance.now();
  try {
    await api.seedKb();
    const run = await fuzzApi(await createFuzzTarget(api), { seed, numRuns, timeLimitMs: seconds * 1000 });
    const elapsed = Math.round((performance.now() - started) / 100) / 10;
    const date = new Date().toISOString().slice(0, 10);
    const statuses = Object.entries(run.statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
    const m = machineInfo();
    const md = [
      `# kb-chat fuzz, ${date}`,
      '',
      `\`npm run bench -- fuzz --seed ${seed}\`: ${run.runs} generated requests in ${elapsed} s against every endpoint, no property failed ` +
        `(never a 5xx; every 4xx a {error:{code,message}} naming the field and writing nothing; every 2xx valid by the wire contract). ` +
        `Statuses: ${statuses}. Commit ${m.git_commit?.slice(0, 12) ?? 'unknown'}${m.git_dirty ? ' (with uncommitted changes)' : ''}, Node ${m.node}.`,
      '',
    ].join('\n');
    const outDir = path.resolve(values.out);
    await mkdir(outDir, { recursive: true });
    await writeFile(
      path.join(outDir, `${date}-fuzz.json`),
      `${JSON.stringify({ date, seconds: elapsed, machine: m, ...run }, null, 2)}\n`,
    );
    await writeFile(path.join(outDir, `${date}-fuzz.md`), md);
    console.log(md);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    console.error(`\nreplay: npm run bench -- fuzz --seed ${seed}`);
    process.exitCode = 1;
  } finally {
    await api.close();
  }
}
