/**
 * The production path for the workerd tests: the Worker bundle exactly as `wrangler deploy` would upload it
 * (dry run), running in workerd (Miniflare) with wrangler.toml's settings, talking through supabase-js to
 * the PostgREST-compatible RPC server over PGlite (rpc-server.ts). Each test file starts its own.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Miniflare } from 'miniflare';
import { inject } from 'vitest';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { ASSET_HEADERS, ASSET_MANIFEST } from '../../scripts/worker-assets.mjs';
import { openPgliteStore, type PgliteStore } from '../../server/store/pglite.ts';
import { migratedTemplate } from '../../server/testing/pglite-template.ts';
import { startRpcServer, type RpcServer, type RpcServerOptions } from './rpc-server.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
export const SECRET = 'workerd-test-jwt-secret-0123456789abcdef';
/**
 * The answer write key, as `npm run console -- answer-key` sets it up: its hash in the project's database, the
 * key itself a secret of the Worker (KB_ANSWER_WRITE_KEY).
 */
export const ANSWER_WRITE_KEY = 'workerd-test-answer-write-key-0123456789abcdef';

/** The stand-in dist/public: a loader, a hashed chat UI, a versioned wasm and model, kb-assets.json. */
export const STAND_IN_ASSETS: Record<string, string | Uint8Array> = {
  'kb-chat.js': 'export {};\n',
  'kb-chat-ui.0123456789.js': 'export const ui = 1;\n',
  'ort/1.31.0/ort-wasm-simd-threaded.wasm': new Uint8Array([0, 97, 115, 109]),
  'models/v-abcdef0123/test-model/config.json': '{"model_type":"bert"}\n',
  [ASSET_MANIFEST]: '{"models_url":"/models/v-abcdef0123/"}\n',
  'admin/index.html': '<!doctype html><title>kb-chat console</title><kb-admin></kb-admin>\n',
};
export const SITE = 'https://docs.example.com';

export interface WorkerHarness {
  pg: PgliteStore;
  supabase: RpcServer;
  mf: Miniflare;
  /** A request to the Worker, as a browser on the internet would make it. */
  worker(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts PGlite, the RPC server and workerd on the run's bundle; `bindings` add to or override the vars (an
 * empty string unsets one); `supabase` configures the RPC server (e.g. asymmetric signing keys).
 */
export async function startWorker(
  bindings: Record<string, string> = {},
  supabaseOptions: Pick<RpcServerOptions, 'signingKeys' | 'captcha' | 'passwordUsers'> = {},
): Promise<WorkerHarness> {
  // Built once per run by bundle.setup.ts (the globalSetup); this folder holds only this harness's assets.
  const bundle = inject('workerBundle');
  const outdir = await mkdtemp(join(tmpdir(), 'kb-chat-worker-'));
  const pg = await openPgliteStore(null, { answerWriteKey: ANSWER_WRITE_KEY, loadDataDir: await migratedTemplate() });
  const supabase = await startRpcServer({ store: pg, jwtSecret: SECRET, ...supabaseOptions });

  // Assets as wrangler.toml configures them (routing, binding), from a small stand-in folder laid out as
  // scripts/build-worker.mjs lays out dist/public.
  const assetsDir = join(outdir, 'public');
  for (const [path, content] of Object.entries(STAND_IN_ASSETS)) {
    await mkdir(dirname(join(assetsDir, path)), { recursive: true });
    await writeFile(join(assetsDir, path), content);
  }
  await writeFile(join(assetsDir, '_headers'), ASSET_HEADERS);
  const fromToml = unstable_getMiniflareWorkerOptions(join(ROOT, 'wrangler.toml')).workerOptions;

  const mf = new Miniflare({
    modules: [{ type: 'ESModule', path: join(bundle, 'worker.js') }],
    modulesRoot: bundle,
    compatibilityDate: fromToml.compatibilityDate,
    assets: { ...fromToml.assets!, directory: assetsDir },
    // wrangler.toml's [[ratelimits]] (the per-IP sign-up limit), simulated by Miniflare.
    ratelimits: fromToml.ratelimits,
    cf: false,
    // What `wrangler secret put` and [vars] provide in production; never the service-role key.
    bindings: {
      SUPABASE_URL: supabase.url,
      SUPABASE_ANON_KEY: supabase.anonKey,
      KB_JWT_SECRET: SECRET,
      KB_ANSWER_WRITE_KEY: ANSWER_WRITE_KEY,
      KB_ALLOWED_ORIGINS: SITE,
      KB_EMBED_MODEL: 'test-model',
      CHAT_EVIDENCE_THRESHOLD: '0.35',
      // An hour-long window, so the rate-limit test cannot straddle a window reset.
      KB_RATE_LIMIT_WINDOW: '3600',
      ...bindings,
    },
  });
  await mf.ready;
  let visitors = 0;

  return {
    pg,
    supabase,
    mf,
    worker(path, init) {
      // As on Cloudflare, every request carries the client's address; unless a test names one, each request
      // comes from a visitor of its own, so the per-IP sign-up limit only binds where a test means it to.
      const headers = new Headers(init?.headers);
      if (!headers.has('CF-Connecting-IP'))
        headers.set('CF-Connecting-IP', `198.18.${(visitors >> 8) & 255}.${visitors++ & 255}`);
      return mf.dispatchFetch(`http://kb-chat.test${path}`, {
        ...init,
        headers,
      } as never) as unknown as Promise<Response>;
    },
    async close() {
      await mf.dispose();
      await supabase.close();
      await pg.close();
      await rm(outdir, { recursive: true, force: true });
    },
  };
}
