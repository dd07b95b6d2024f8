/**
 * The Cloudflare Workers entry: the same `createApp` as on Node, with the Supabase store (anon key + the
 * visitor's JWT, so RLS applies) and Supabase Auth's anonymous sign-in. The widget bundle, model files and
 * the ONNX Runtime wasm are static assets (wrangler.toml `[assets]`); only `/api/*` reaches this code.
 * The service-role key is never configured here.
 */
import { Hono, type ExecutionContext } from 'hono';
import { createApp, depsFromConfig } from './app.ts';
import { supabaseAnonymousSignIn } from './auth/supabase-anonymous.ts';
import { readConfig } from './config/index.ts';
import { retryPolicyFor } from './store/rpc-retry.ts';
import { createSupabaseChatStore } from './store/supabase.ts';

export interface WorkerEnv {
  SUPABASE_URL: string;
  SUPABASE_ANON_KEY: string;
  /** Secret: the project's legacy JWT secret, to verify HS256 visitor tokens (or set KB_JWKS_URL). */
  KB_JWT_SECRET?: string;
  /** The project's JWKS URL (<SUPABASE_URL>/auth/v1/.well-known/jwks.json) for asymmetric signing keys. */
  KB_JWKS_URL?: string;
  /** Comma-separated origins allowed to call the API from a browser (the sites embedding the widget). */
  ALLOWED_ORIGINS?: string;
  KB_EMBED_MODEL?: string;
  CHAT_EVIDENCE_THRESHOLD?: string;
  /** Where browsers fetch models and the ORT wasm; defaults to this Worker's own assets. */
  MODELS_URL?: string;
  ORT_WASM_URL?: string;
  /** The static assets (wrangler.toml `[assets] binding`): read for kb-assets.json, the build's model URL. */
  ASSETS?: { fetch(input: string): Promise<Response> };
  [name: string]: unknown;
}

// One app per isolate and configuration: env objects are stable across requests of an isolate.
const apps = new WeakMap<object, Promise<Hono>>();

/**
 * The model's URL: MODELS_URL when set, else the versioned folder the build put it in (`/models/v-<hash>/`,
 * named in the assets' kb-assets.json by scripts/build-worker.mjs), so browsers may cache it for a year.
 */
async function modelsUrl(env: WorkerEnv): Promise<string> {
  if (env.MODELS_URL) return env.MODELS_URL;
  const res = await env.ASSETS?.fetch('https://assets.invalid/kb-assets.json').catch(() => null);
  const manifest = res?.ok ? ((await res.json().catch(() => ({}))) as { models_url?: unknown }) : {};
  return typeof manifest.models_url === 'string' ? manifest.models_url : '/models/';
}

async function workerApp(env: WorkerEnv): Promise<Hono> {
  const config = readConfig(env as Record<string, string | undefined>);
  for (const name of ['SUPABASE_URL', 'SUPABASE_ANON_KEY'] as const) {
    if (!env[name]) throw new Error(`${name} is not set (see docs/deploy.md)`);
  }
  if (!config.jwtSecret && !config.jwksUrl) throw new Error('set KB_JWT_SECRET or KB_JWKS_URL (see docs/deploy.md)');
  const app = new Hono();
  // CORS, SSE headers (identity encoding, no-transform) and everything else are the app's own.
  const api = createApp({
    ...depsFromConfig(config),
    // ALLOWED_ORIGINS is the older name of KB_ALLOWED_ORIGINS; both work.
    allowedOrigins: config.allowedOrigins.length > 0 ? config.allowedOrigins : splitList(env.ALLOWED_ORIGINS),
    // Every Supabase call is bounded (KB_DB_TIMEOUT_MS) and idempotent ones are retried within twice that,
    // so a visitor learns in seconds, with a 503 or an in-band error, that the database is unavailable.
    store: createSupabaseChatStore({ url: env.SUPABASE_URL, key: env.SUPABASE_ANON_KEY, retry: retryPolicyFor(config.dbTimeoutMs) }),
    anonymousSignIn: supabaseAnonymousSignIn({ url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY, timeoutMs: config.dbTimeoutMs }),
    jwtSecret: env.KB_JWT_SECRET || null,
    modelsUrl: await modelsUrl(env),
    // The embedder appends `<ORT version>/ort-wasm-simd-threaded.wasm`.
    ortWasmUrl: env.ORT_WASM_URL || '/ort/',
  });
  // Delegate whole requests (not `app.route`), so the API's own not-found and error handlers answer.
  app.all('*', (c) => api.fetch(c.req.raw, c.env));
  return app;
}

function splitList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((item) => item.trim()).filter(Boolean);
}

export default {
  async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
    let app = apps.get(env);
    if (!app) apps.set(env, (app = workerApp(env)));
    // A configuration error is not cached: the next request tries again (and throws again, visibly).
    app.catch(() => apps.delete(env));
    return (await app).fetch(request, env, ctx);
  },
};
