/**
 * One seeded data directory for the whole end-to-end run (vitest.e2e.config.ts's globalSetup): what a first
 * start leaves (migrations applied, the demo knowledge base ingested with the test-double model, closed
 * cleanly by SIGTERM). Each test file copies it (seededDataDir in process.ts, startServerAndBrowser in
 * server.ts) instead of paying PGlite's initdb, the migrations and the demo ingestion again: on this
 * repository's 2-core machine a first start took 21 s of CPU and a start on a copy 9 s (/proc/<pid>/stat of
 * `server/runtime/node/start.ts` up to its ready line), and most files start a server. demo.test.ts still
 * starts on an empty directory, so the first-run ingestion stays tested end to end. The folder is removed
 * when the run ends.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startServer } from './process.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A data directory as a first start leaves it; copy it, never write to it. */
    seededDataDir: string;
  }
}

export default async function seedOnce(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'kb-e2e-seeded-'));
  const first = await startServer(dir);
  first.process.kill('SIGTERM');
  const { code } = await first.exited;
  if (code !== 0) throw new Error(`the seeding server exited with ${code}:\n${first.output()}`);
  project.provide('seededDataDir', dir);
  return () => rm(dir, { recursive: true, force: true });
}
