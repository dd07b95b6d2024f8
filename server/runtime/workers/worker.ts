/**
 * The Cloudflare Workers entry: the same `createApp` as on Node, with the Supabase store (anon key + the
 * visitor's JWT, so RLS applies) and Supabase Auth's anonymous sign-in. The widget bundle, model files and
 * the ONNX Runtime wasm are static assets (wrangler.toml `[assets]`); only `/api/*` reaches this code.
 * The service-role key is never configured here.
 */
import { Hono, type ExecutionContext } from 'hono';
import { supabasePasswordSignIn } from '../../console/session.ts';
import { createApp, depsFromConfig } from '../../app.ts';
import { turnstileConfig, turnstileVerifier } from '../../auth/captcha.ts';
import { bindingLimiter, type RateLimitBinding } from '../../http/client-limit.ts';
import { supabaseAnonymousSignIn, supabaseRefresh } from '../../auth/supabase-anonymous.ts';
import { readConfig } from '../../config/index.ts';
import { retryPolicyFor } from '../../store/rpc-retry.ts';
import { answerWriteKeyProblem } from '../../store/answer-key.ts';
import { createSupabaseChatStore } from '../../store/supabase.ts';
import { createWebhooks, fetchPost } from '../../webhooks/dispatcher.ts';

export interface WorkerEnv {
  SUPABASE_URL: string;
  SUPABASE_ANON_KEY: string;
  /** A secret (`wrangler secret put`): what answers are written with; `npm run console -- answer-key` makes it. */
  KB_ANSWER_WRITE_KEY: string;
  /**
   * Legacy, discouraged: the project's HS256 JWT secret. Only for projects that have not moved to asymmetric
   * signing keys; it can sign tokens for any role, so keep it out of the Worker when you can.
   */
  KB_JWT_SECRET?: string;
  /** Where the signing keys are published; default <SUPABASE_URL>/auth/v1/.well-known/jwks.json. */
  KB_JWKS_URL?: string;
  /** Expected `iss`; default <SUPABASE_URL>/auth/v1. */
  KB_JWT_ISSUER?: string;
  /** Comma-separated origins allowed to call the API from a browser (the sites embedding the widget). */
  KB_ALLOWED_ORIGINS?: string;
  KB_EMBED_MODEL?: string;
  CHAT_EVIDENCE_THRESHOLD?: string;
  /** Where browsers fetch models and the ORT wasm; defaults to this Worker's own assets. */
  MODELS_URL?: string;
  ORT_WASM_URL?: string;
  /** wrangler.toml `[[ratelimits]]` (period 60 s each), per client network: anonymous sign-ups, */
  SIGNUP_LIMITER?: RateLimitBinding;
  /** refreshes (`POST /api/auth/refresh`), */
  REFRESH_LIMITER?: RateLimitBinding;
  /** and console sign-in attempts (`POST /api/admin/session` and `/password` together). */
  ADMIN_SIGNIN_LIMITER?: RateLimitBinding;
  /**
   * Optional webhook (docs/api.md, "Webhooks"): where events are POSTed and the secret they are signed with —
   * `wrangler secret put` both. A Worker reads the webhook only from here: it holds no key that could read
   * a secret stored by the console back from the database.
   */
  KB_WEBHOOK_URL?: string;
  KB_WEBHOOK_SECRET?: string;
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
  if (!env.ASSETS) return '/models/';
  // A manifest that cannot be read must not become an unversioned URL the build did not deploy (every model
  // request a 404, for the isolate's life): fail, and the next request builds the app again.
  const res = await env.ASSETS.fetch('https://assets.invalid/kb-assets.json');
  if (!res.ok) throw new Error(`kb-assets.json: ${res.status} (run npm run build before deploying)`);
  const manifest = (await res.json()) as { models_url?: unknown };
  return typeof manifest.models_url === 'string' ? manifest.models_url : '/models/';
}

async function workerApp(env: WorkerEnv): Promise<Hono> {
  const config = readConfig(env as Record<string, string | undefined>);
  for (const name of ['SUPABASE_URL', 'SUPABASE_ANON_KEY'] as const) {
    if (!env[name]) throw new Error(`${name} is not set (see docs/deploy.md)`);
  }
  // Without it every answer would be refused by the database: fail here, where the message says what to set.
  const keyProblem = answerWriteKeyProblem(config.answerWriteKey);
  if (keyProblem) throw new Error(keyProblem);
  const auth = supabaseTokenChecks(env.SUPABASE_URL, config.jwksUrl, config.jwtIssuer);
  const app = new Hono();
  // CORS, SSE headers (identity encoding, no-transform) and everything else are the app's own.
  const api = createApp({
    ...depsFromConfig(config),
    // Every Supabase call is bounded (KB_DB_TIMEOUT_MS) and idempotent ones are retried within twice that,
    // so a visitor learns in seconds, with a 503 or an in-band error, that the database is unavailable.
    store: createSupabaseChatStore({
      url: env.SUPABASE_URL,
      key: env.SUPABASE_ANON_KEY,
      // The narrow credential answers are written with (never the service-role key, which bypasses RLS).
      answerWriteKey: config.answerWriteKey!,
      retry: retryPolicyFor(config.dbTimeoutMs),
    }),
    anonymousSignIn: supabaseAnonymousSignIn({
      url: env.SUPABASE_URL,
      anonKey: env.SUPABASE_ANON_KEY,
      timeoutMs: config.dbTimeoutMs,
    }),
    refreshSignIn: supabaseRefresh({
      url: env.SUPABASE_URL,
      anonKey: env.SUPABASE_ANON_KEY,
      timeoutMs: config.dbTimeoutMs,
    }),
    // The console (/admin): admins sign in with Supabase Auth (password grant relayed; no uploads or
    // server-side embedding here — documents are added with the CLI).
    admin: {
      passwordSignIn: supabasePasswordSignIn({
        url: env.SUPABASE_URL,
        anonKey: env.SUPABASE_ANON_KEY,
        timeoutMs: config.dbTimeoutMs,
      }),
      ...(env.ADMIN_SIGNIN_LIMITER
        ? { signInLimiter: bindingLimiter(env.ADMIN_SIGNIN_LIMITER, 60, 'admin-signin') }
        : {}),
    },
    // Deliveries are kept alive with the request's waitUntil (the routes pass it); Cloudflare's fetch cannot
    // reach private networks, so no address guard is needed here.
    ...(config.webhook.url
      ? {
          webhooks: createWebhooks({
            target: async () => ({ url: config.webhook.url, secret: config.webhook.secret }),
            post: fetchPost,
            allowLoopback: config.webhook.allowLoopback,
          }),
        }
      : {}),
    webhookDefaults: { url: config.webhook.url, secretSet: config.webhook.secret !== null },
    // Cloudflare's edge sets CF-Connecting-IP and overwrites whatever a client sent.
    clientIp: (c) => c.req.header('CF-Connecting-IP') ?? null,
    ...(env.SIGNUP_LIMITER ? { signupLimiter: bindingLimiter(env.SIGNUP_LIMITER, 60, 'signup') } : {}),
    // Refresh is Supabase Auth's: it rotates refresh tokens and, with "Detect and revoke potentially
    // compromised refresh tokens" (on by default), ends the session when a used token comes back after its
    // reuse interval (10 s); an absolute end is its "Time-box user sessions" setting (Auth → Sessions). This
    // limit is in front of its token endpoint, whose per-IP quota every client of the Worker shares.
    ...(env.REFRESH_LIMITER ? { refreshLimiter: bindingLimiter(env.REFRESH_LIMITER, 60, 'refresh') } : {}),
    // Turnstile: the token is relayed to Supabase Auth, which checks it (its CAPTCHA protection holds the
    // secret); with KB_CAPTCHA_SECRET the Worker checks it too, before calling Supabase at all.
    ...(config.captcha
      ? {
          captcha: {
            config: turnstileConfig(config.captcha.siteKey, config.captcha.scriptUrl ?? undefined),
            ...(config.captcha.secret
              ? {
                  verify: turnstileVerifier({
                    secret: config.captcha.secret,
                    ...(config.captcha.verifyUrl ? { url: config.captcha.verifyUrl } : {}),
                  }),
                }
              : {}),
          },
        }
      : {}),
    ...auth,
    // Legacy only: a Worker holding the HS256 secret can sign any role's token, service_role included.
    // (readConfig has refused one shorter than 32 bytes.)
    jwtSecret: config.jwtSecret,
    modelsUrl: await modelsUrl(env),
    // The embedder appends `<ORT version>/ort-wasm-simd-threaded.wasm`.
    ortWasmUrl: env.ORT_WASM_URL || '/ort/',
  });
  // Delegate whole requests (not `app.route`), so the API's own not-found and error handlers answer.
  // The execution context goes along: webhook deliveries need its waitUntil to outlive the response.
  app.all('*', (c) => api.fetch(c.req.raw, c.env, c.executionCtx));
  return app;
}

/**
 * Tokens are checked against the project's published signing keys (asymmetric: the Worker holds nothing
 * that can sign), and must come from the project's own Auth server.
 */
export function supabaseTokenChecks(supabaseUrl: string, jwksUrl: string | null, issuer: string | null) {
  const base = supabaseUrl.replace(/\/+$/, '');
  return {
    jwksUrl: jwksUrl ?? `${base}/auth/v1/.well-known/jwks.json`,
    jwtIssuer: issuer ?? `${base}/auth/v1`,
  };
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
