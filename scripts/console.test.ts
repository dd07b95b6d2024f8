/**
 * `npm run console -- answer-key` end to end: a real process against the PostgREST-compatible server over
 * PGlite (test/workerd/rpc-server.ts) with the service-role key, as on a Supabase project: the hash of the
 * key it prints is what the database checks, and the key it printed writes answers.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ws from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRpcServer, type RpcServer } from '../test/workerd/rpc-server.ts';
import { verifyAccessToken } from '../server/auth/jwt.ts';
import { supabaseAnonymousSignIn } from '../server/auth/supabase-anonymous.ts';
import { answerWriteKeyHash, ANSWER_WRITE_KEY_MIN_CHARS } from '../server/store/answer-key.ts';
import { openPgliteStore, type PgliteStore } from '../server/store/pglite.ts';
import { migratedTemplate } from '../server/testing/pglite-template.ts';
import { createSupabaseChatStore } from '../server/store/supabase.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const SECRET = 'admin-cli-test-jwt-secret-0123456789abcdef';

let pg: PgliteStore;
let server: RpcServer;
beforeAll(async () => {
  pg = await openPgliteStore(null, { loadDataDir: await migratedTemplate() });
  server = await startRpcServer({ store: pg, jwtSecret: SECRET });
});
afterAll(async () => {
  await server?.close();
  await pg?.close();
});

function admin(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const clean = { ...process.env, SUPABASE_URL: '', SUPABASE_SERVICE_ROLE_KEY: '', ...env };
    execFile(
      TSX,
      [path.join(ROOT, 'scripts/console.ts'), ...args],
      { cwd: ROOT, env: clean, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run console -- answer-key', () => {
  it('stores the hash of a new key with the service-role key and prints the key, which then writes answers', async () => {
    const run = await admin(['answer-key'], {
      SUPABASE_URL: server.url,
      SUPABASE_SERVICE_ROLE_KEY: server.serviceRoleKey,
    });
    expect(run.code, run.stderr).toBe(0);
    const key = run.stdout.trim();
    expect(key).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(key.length).toBeGreaterThanOrEqual(ANSWER_WRITE_KEY_MIN_CHARS);
    expect(run.stderr).toContain('wrangler secret put KB_ANSWER_WRITE_KEY');
    expect((await pg.db.query('select key_hash from kb_answer_write_key')).rows).toEqual([
      { key_hash: await answerWriteKeyHash(key) },
    ]);
    expect(server.log.filter((e) => e.path === '/rest/v1/rpc/kb_set_answer_write_key')).toEqual([
      expect.objectContaining({ status: 200, role: 'service_role', args: ['p_key_hash'] }),
    ]);

    // The Worker's store with that key answers a visitor's question.
    const store = createSupabaseChatStore({
      url: server.url,
      key: server.anonKey,
      answerWriteKey: key,
      realtimeTransport: ws,
    });
    const auth = await supabaseAnonymousSignIn({ url: server.url, anonKey: server.anonKey })();
    const visitor = await verifyAccessToken(auth.access_token, SECRET);
    const messageId = crypto.randomUUID();
    const { session_id } = await store.beginTurn(visitor, {
      message_id: messageId,
      content: 'Refunds?',
      title: 'Refunds?',
    });
    expect(
      await store.finishTurn(visitor, {
        session_id,
        reply_to: messageId,
        content: 'Within 14 days.',
        citations: [],
        meta: {},
      }),
    ).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('says what to set without SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY, and changes nothing', async () => {
    const before = (await pg.db.query('select key_hash from kb_answer_write_key')).rows;
    const run = await admin(['answer-key'], {});
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/set SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY/);
    expect(run.stdout).toBe('');
    expect((await pg.db.query('select key_hash from kb_answer_write_key')).rows).toEqual(before);
  });
});
