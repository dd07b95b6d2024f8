/**
 * A KB_JWT_SECRET shorter than 32 bytes is refused at start-up, by every entry that reads it — the Node
 * server (`server/runtime/node/start.ts`), the link command (`scripts/console.ts`) and the Worker — with a message that
 * says how to make one. Anyone holding one token the server signed can try secrets offline; a short one is
 * found, and with it any token (admin, service role) can be signed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import worker from '../runtime/workers/worker.ts';
import { localJwtSecret } from '../runtime/node/jwt-secret.ts';
import { readConfig } from './index.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const SHORT = 'too-short-secret-0123456789'; // 27 bytes
const HOW = /openssl rand -base64 32/;

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'kb-chat-secret-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

/** Runs a script as `npm start` / `npm run console` run it (tsx), and returns its exit code and output. */
async function run(script: string, args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      env: { ...process.env, KB_DATA_DIR: join(dataDir, 'data'), PORT: '0', ...env },
      timeout: 60_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, output: stdout + stderr };
  }
}

describe('KB_JWT_SECRET shorter than 32 bytes', () => {
  it('readConfig refuses it, counting bytes, and says how to make one; 32 bytes are enough', () => {
    expect(() => readConfig({ KB_JWT_SECRET: SHORT })).toThrow(
      /KB_JWT_SECRET is 27 bytes long; it must be at least 32/,
    );
    expect(() => readConfig({ KB_JWT_SECRET: SHORT })).toThrow(HOW);
    expect(() => readConfig({ KB_JWT_SECRET: 'é'.repeat(15) })).toThrow(/30 bytes/);
    expect(readConfig({ KB_JWT_SECRET: 'x'.repeat(32) }).jwtSecret).toBe('x'.repeat(32));
    expect(readConfig({}).jwtSecret).toBeNull();
  });

  it('the Node server does not start, and opens no database', async () => {
    const { code, output } = await run('server/runtime/node/start.ts', [], { KB_JWT_SECRET: SHORT });
    expect(code).not.toBe(0);
    expect(output).toMatch(/KB_JWT_SECRET is 27 bytes long/);
    expect(output).toMatch(HOW);
    expect(output).not.toMatch(/kb-chat is running/);
    expect(await readdir(dataDir)).toEqual([]);
  });

  it('the link command prints no link', async () => {
    const { code, output } = await run('scripts/console.ts', ['link'], { KB_JWT_SECRET: SHORT });
    expect(code).not.toBe(0);
    expect(output).toMatch(HOW);
    expect(output).not.toMatch(/#link=/);
  });

  it('a short secret kept in KB_DATA_DIR (written by hand) is refused too', async () => {
    const dir = join(dataDir, 'kept');
    await localJwtSecret(dir); // creates a strong one
    await writeFile(join(dir, 'kb-chat-jwt-secret'), SHORT);
    await expect(localJwtSecret(dir)).rejects.toThrow(HOW);
  });

  it('the Worker refuses to build its app (each request fails; nothing is served with the weak secret)', async () => {
    const env = {
      SUPABASE_URL: 'http://127.0.0.1:9',
      SUPABASE_ANON_KEY: 'anon',
      KB_ANSWER_WRITE_KEY: 'k'.repeat(43),
      KB_JWT_SECRET: SHORT,
      MODELS_URL: '/models/',
    };
    await expect(worker.fetch(new Request('http://kb-chat.test/api/health'), env, {} as never)).rejects.toThrow(HOW);
  });
});
