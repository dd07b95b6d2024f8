/**
 * The quality floor `npm test` holds (scripts/eval/floor.test.ts): for the demo question set and every
 * held-out set in scripts/eval/qa/, the share of answers that contain the asked fact, as recorded in
 * scripts/eval/floor.json. A run more than three points below the recorded figure fails. The figures are
 * measured the way the test measures them — hybrid retrieval, the test-double embedder CI has, the server's
 * default thresholds whatever the environment says — so the recorded and the checked number are the same
 * computation. `npm run eval -- --record-floor` rewrites the file after a measured improvement (or a new
 * held-out set).
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readConfig } from '../../server/config/index.ts';
import type { Embedder } from '../../server/ingest/embedder.ts';
import { isConversationFile } from './conversations.ts';
import { evaluateQa, readQaFile } from './docs-qa.ts';
import { QA_DIR } from './sites.ts';
import { buildKb, type Kb } from './squad.ts';

export const FLOOR_PATH = 'scripts/eval/floor.json';
/** How far below the recorded figure a run may fall: one or two answers on a 50-question set. */
export const FLOOR_MARGIN = 0.03;
/** The embedder of the measurement: the one the repository ships (CI has no real model). */
export const FLOOR_MODEL = 'test-double/bert-384';
export const FLOOR_MODEL_DIR = 'test/fixtures/models';

export interface FloorEntry {
  fact_in_answer: number;
  questions: number;
}

export interface Floor {
  note: string;
  mode: 'hybrid';
  model: string;
  margin: number;
  /** Question-set path (relative to the repository root) → its recorded figure. */
  files: Record<string, FloorEntry>;
}

export async function readFloor(file = FLOOR_PATH): Promise<Floor> {
  return JSON.parse(await readFile(file, 'utf8')) as Floor;
}

/**
 * Held-out sets written but never run yet, left out of the floor until their first run. A held-out set is
 * measured once, by the lead, after the choices it judges are made; recording its floor figure (or checking
 * one) is such a run, so `--record-floor` must not be the thing that runs it first, and there is no figure
 * to hold it to before then. After the first run: remove the set from this list and record its figure
 * (`npm run eval -- --record-floor`), from then on it is held to the floor like the others.
 */
export const AWAITING_FIRST_RUN: readonly string[] = [];

/** The sets the floor covers: demo-kb*.json and *heldout*.json, conversation sets and AWAITING_FIRST_RUN excepted. */
export async function floorFiles(dir = QA_DIR): Promise<string[]> {
  const names = (await readdir(dir)).filter(
    (n) =>
      n.endsWith('.json') &&
      (n.startsWith('demo-kb') || n.includes('heldout')) &&
      !AWAITING_FIRST_RUN.includes(path.join(dir, n)),
  );
  const out: string[] = [];
  for (const name of names.sort()) {
    const file = path.join(dir, name);
    if (!isConversationFile(JSON.parse(await readFile(file, 'utf8')))) out.push(file);
  }
  return out;
}

/** Fact in answer on one set, measured as the floor is recorded, asked of `kb` (one ingestion of the set's corpus). */
export async function measureFloor(file: string, embedder: Embedder, kb: Kb): Promise<FloorEntry> {
  const qa = await readQaFile(file);
  const { report } = await evaluateQa({
    qa,
    embedder,
    kb,
    mode: 'hybrid',
    evidenceThreshold: readConfig({}).evidenceThreshold,
  });
  return { fact_in_answer: Math.round(report.fact_in_answer * 10_000) / 10_000, questions: qa.items.length };
}

/**
 * The sets grouped by their corpus (absolute path; a set file that is absent stands alone under its own
 * name), in the order given: every set over one site is asked of one ingestion of it, which is most of a
 * set's cost (three held-out sets per site would otherwise ingest the site three times). Synchronous, so
 * the floor test can build its groups while vitest collects it.
 */
export function byCorpus(files: readonly string[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const file of files) {
    const corpus = existsSync(file)
      ? path.resolve((JSON.parse(readFileSync(file, 'utf8')) as { corpus: string }).corpus)
      : `(set absent) ${file}`;
    groups.set(corpus, [...(groups.get(corpus) ?? []), file]);
  }
  return groups;
}

/** Measures every covered set whose corpus is present and writes floor.json (entries it cannot measure kept). */
export async function recordFloor(embedder: Embedder, log: (line: string) => void): Promise<Floor> {
  const previous = existsSync(FLOOR_PATH) ? (await readFloor()).files : {};
  const files: Record<string, FloorEntry> = { ...previous };
  for (const [corpus, sets] of byCorpus(await floorFiles())) {
    if (!existsSync(corpus)) {
      for (const file of sets)
        log(`  ${file}: corpus absent, ${previous[file] ? 'recorded figure kept' : 'not recorded'}`);
      continue;
    }
    const kb = await buildKb(corpus, embedder);
    try {
      for (const file of sets) {
        files[file] = await measureFloor(file, embedder, kb);
        log(`  ${file}: fact in answer ${(files[file].fact_in_answer * 100).toFixed(1)} % of ${files[file].questions}`);
      }
    } finally {
      await kb.close();
    }
  }
  const floor: Floor = {
    note: 'Recorded by `npm run eval -- --record-floor`; checked by scripts/eval/floor.test.ts in npm test.',
    mode: 'hybrid',
    model: FLOOR_MODEL,
    margin: FLOOR_MARGIN,
    files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b))),
  };
  await writeFile(FLOOR_PATH, `${JSON.stringify(floor, null, 2)}\n`);
  return floor;
}
