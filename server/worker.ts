/**
 * The Cloudflare Workers entry: the same `createApp` as on Node, with the Supabase store (anon key + the
 * visitor's JWT, so RLS applies) and Supabase Auth's anonymous sign-in. The widget bundle, model files and
 * the ONNX Runtime wasm are static assets (wrangler.toml `[assets]`); only `/api/*` reaches this code.
 * The service-role key is never configured here.
 */
import { Hono, type ExecutionContext } from 'hono';
import { cors } from 'hono/cors';
import { createApp } from './app.ts';
import { supabaseAnonymousSignIn } from './auth/supabase-anonymous.ts';
import { readConfig } from './config/index.ts';
import { createSupabaseChatStore } from './store/supabase.ts';

export interface WorkerEnv {
  SUPABASE_URL: string;
  SUPABASE_ANON_KEY: string;
  /** Secret: the project's JWT secret (Settings → API → JWT secret), to verify visitor tokens. */
  KB_JWT_SECRET: string;
  /** Comma-separated origins allowed to call the API from a browser (the sites embedding the widget). */
  ALLOWED_ORIGINS?: string;
  KB_EMBED_MODEL?: string;
  CHAT_EVIDENCE_THRESHOLD?: string;
  /** Where browsers fetch models and the ORT wasm; defaults to this Worker's own assets. */
  MODELS_URL?: string;
  ORT_WASM_URL?: string;
  [name: string]: unknown;
}

// One app per isolate and configuration: env objects are stable across requests of an isolate.
const apps = new WeakMap<object, Hono>();

function workerApp(env: WorkerEnv): Hono {
  const config = readConfig(env as Record<string, string | undefined>);
  for (const name of ['SUPABASE_URL', 'SUPABASE_ANON_KEY', 'KB_JWT_SECRET'] as const) {
    if (!env[name]) throw new Error(`${name} is not set (see docs/deploy.md)`);
  }
  const origins = (env.ALLOWED_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean);

  const app = new Hono();
  app.use(
    '/api/*',
    cors({ origin: origins.includes('*') ? '*' : origins, allowHeaders: ['Authorization', 'Content-Type'], maxAge: 600 }),
  );
  // Cloudflare may buffer (and compress) a response it thinks is compressible; an explicit identity
  // encoding keeps an event stream flowing event by event.
  app.use('/api/*', async function unbufferedEventStreams(c, next) {
    await next();
    if (c.res.headers.get('Content-Type')?.startsWith('text/event-stream')) {
      c.res.headers.set('Content-Encoding', 'identity');
      c.res.headers.set('Cache-Control', 'no-cache, no-transform');
    }
  });
  const api = createApp({
    store: createSupabaseChatStore({ url: env.SUPABASE_URL, key: env.SUPABASE_ANON_KEY }),
    anonymousSignIn: supabaseAnonymousSignIn({ url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY }),
    jwtSecret: env.KB_JWT_SECRET,
    evidenceThreshold: config.evidenceThreshold,
    embedModel: config.embedModel,
    modelsUrl: env.MODELS_URL || '/models/',
    ortWasmUrl: env.ORT_WASM_URL || '/ort/',
  });
  // Delegate whole requests (not `app.route`), so the API's own not-found and error handlers answer.
  app.all('*', (c) => api.fetch(c.req.raw, c.env));
  return app;
}

export default {
  fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Response | Promise<Response> {
    let app = apps.get(env);
    if (!app) apps.set(env, (app = workerApp(env)));
    return app.fetch(request, env, ctx);
  },
};
