/**
 * The Worker bundle, built once for a workerd run (vitest.workerd.config.ts's globalSetup) instead of once per
 * startWorker(): the same command and output as each harness built before (`scripts/build-worker.mjs
 * --skip-assets`, a wrangler dry run of the sources as they are), which no test writes to; every harness lays
 * out its own stand-in assets beside it. The folder is removed when the run ends.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder holding the built worker.js. */
    workerBundle: string;
  }
}

const ROOT = new URL('../../', import.meta.url).pathname;

export default async function buildOnce(project: TestProject): Promise<() => Promise<void>> {
  const outdir = await mkdtemp(join(tmpdir(), 'kb-chat-worker-bundle-'));
  await promisify(execFile)('node', ['scripts/build-worker.mjs', '--skip-assets', '--outdir', outdir], { cwd: ROOT });
  project.provide('workerBundle', outdir);
  return () => rm(outdir, { recursive: true, force: true });
}
