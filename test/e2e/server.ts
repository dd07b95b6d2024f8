/**
 * Starts the real server (server/runtime/node/start.ts) and Chromium. The server starts on a copy of the run's
 * seeded data directory (seeded.setup.ts: what a first start leaves), or with `fresh` on an empty one, so that
 * its first start ingests the demo knowledge base as a new install's does (demo.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/lib/chromium.mjs';
import { seededDataDir } from './process.ts';

export const ROOT = new URL('../../', import.meta.url).pathname;
export interface Running {
  baseUrl: string;
  browser: Browser;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

export async function startServerAndBrowser(
  env: Record<string, string> = {},
  { fresh = false }: { fresh?: boolean } = {},
): Promise<Running> {
  if (!existsSync(join(ROOT, 'dist/kb-chat.js')))
    throw new Error('dist/kb-chat.js is missing: run `npm run build` first');
  const dataDir = await mkdtemp(join(tmpdir(), 'kb-e2e-'));
  if (!fresh) await seededDataDir(dataDir);
  const server: ChildProcess = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['server/runtime/node/start.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      KB_DATA_DIR: dataDir,
      KB_EMBED_MODEL: 'test-double/bert-384',
      KB_MODEL_DIR: join(ROOT, 'test/fixtures/models'),
      KB_JWT_SECRET: 'e2e-secret-e2e-secret-e2e-secret-0123',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  server.stdout!.on('data', (data: Buffer) => (printed += data.toString()));
  server.stderr!.on('data', (data: Buffer) => (printed += data.toString()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let output = '';
    const onData = (data: Buffer) => {
      output += data.toString();
      const match = /kb-chat is running at (http:\/\/\S+?)\/? /.exec(output);
      if (match) resolve(match[1]!);
    };
    server.stdout!.on('data', onData);
    server.stderr!.on('data', onData);
    server.on('exit', (code) => reject(new Error(`server exited (${code}) before it was ready:\n${output}`)));
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  return {
    baseUrl,
    browser,
    output: () => printed,
    async stop() {
      await browser.close();
      server.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until the widget's embedder has loaded the model (hybrid retrieval). The Send button no longer
 * tells: since commit edb7407 it takes questions at once, in keyword mode until the model is ready.
 */
export function modelReady(page: import('playwright-core').Page, timeout = 30_000): Promise<unknown> {
  return page.waitForFunction(
    () =>
      (document.querySelector('kb-chat') as unknown as { ui?: { embedder: { status: string } } } | null)?.ui?.embedder
        .status === 'ready',
    null,
    { timeout, polling: 100 },
  );
}
