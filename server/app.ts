/**
 * The runtime-agnostic API: only Request/Response and Web Streams. The Node entry (server/runtime/node/)
 * and the Workers entry (server/runtime/workers/worker.ts) wrap it; tests call `app.request()` directly.
 */
import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import {
  ADMIN_BASE,
  ADMIN_PATHS,
  API_PATHS,
  UPLOAD_MAX_BYTES,
  type AdminSession,
  type AnonymousAuth,
  type ClientConfig,
  type Health,
} from '../protocol/index.ts';
import { adminRoute } from './console/route.ts';
import type { EmbedQuestion } from './console/try.ts';
import type { AdminUploader } from './console/upload.ts';
import {
  issueAccessToken,
  REFRESH_TTL_SECONDS,
  SESSION_LIFETIME_SECONDS,
  TOKEN_TTL_SECONDS,
  type TokenVerification,
} from './auth/jwt.ts';
import { authRoute, invalidRefreshToken } from './auth/route.ts';
import type { CaptchaOptions } from './auth/captcha.ts';
import type { ClientAddress, ClientLimiter } from './http/client-limit.ts';
import { chatRoute, DEFAULT_MAX_STREAMS, StreamSlots } from './chat/route.ts';
import type { StreamOptions } from './chat/stream.ts';
import { DEFAULT_GENERATION_MODEL, type Config } from './config/index.ts';
import { chunksRoute } from './chunks/route.ts';
import { feedbackRoute } from './feedback/route.ts';
import { historyRoute } from './history/route.ts';
import { searchRoute } from './search/route.ts';
import { llmsRoute } from './llms/route.ts';
import { MCP_PATH, mcpRoute } from './mcp/route.ts';
import { admission, AdmissionQueue, type AdmissionOptions } from './http/admission.ts';
import { declaredBodyLimit } from './http/body-limit.ts';
import { errorBody, fromStoreError, onAppError } from './http/errors.ts';
import { setBaseSecurityHeaders } from './http/security-headers.ts';
import { settingsReader, type SettingsDefaults } from './settings/runtime.ts';
import type { RetrievalOptions } from './retrieval/index.ts';
import type { AnswerMode, ChatStore, LocalAuthStore } from './store/types.ts';
import type { Webhooks } from './webhooks/dispatcher.ts';
import { DEFAULT_ANSWER_MODE, DEFAULT_RATE_LIMIT } from './config/defaults.ts';

export interface AppDeps {
  store: ChatStore;
  /** Local mode: issue anonymous tokens (the stand-in for Supabase anonymous sign-in). */
  localAuth?: LocalAuthStore;
  /**
   * `POST /api/auth/anonymous` when the token comes from elsewhere (Workers: Supabase Auth's anonymous
   * sign-in). Takes precedence over `localAuth`.
   */
  anonymousSignIn?: (captchaToken?: string) => Promise<AnonymousAuth>;
  /** `POST /api/auth/refresh` when tokens come from elsewhere (Workers: Supabase Auth's refresh). */
  refreshSignIn?: (refreshToken: string) => Promise<AnonymousAuth>;
  /** A CAPTCHA before every anonymous sign-up (server/auth/captcha.ts); none when unset. */
  captcha?: CaptchaOptions;
  /** Anonymous sign-ups per client network (server/http/client-limit.ts); none when unset. */
  signupLimiter?: ClientLimiter;
  /** `POST /api/auth/refresh` per client network; none when unset. */
  refreshLimiter?: ClientLimiter;
  /** The client's address as the runtime knows it (the socket's on Node, CF-Connecting-IP on Workers). */
  clientIp?: ClientAddress;
  /** HS256 secret (KB_JWT_SECRET). Local tokens are signed with it. */
  jwtSecret: string | null;
  /** Asymmetric signing keys (KB_JWKS_URL), expected issuer and audience of tokens. */
  jwksUrl?: string | null;
  jwtIssuer?: string | null;
  jwtAudience?: string;
  evidenceThreshold: number;
  embedModel: string;
  /** KB_ANSWER_MODE: the answer mode unless an admin set one (`/api/admin/settings`). */
  answerMode?: AnswerMode;
  /** KB_GENERATION_MODEL: the model the widget writes answers with in generative mode. */
  generationModel?: string;
  /** Where browsers load model files and the ONNX Runtime wasm from (same origin as the widget). */
  modelsUrl?: string;
  ortWasmUrl?: string;
  /** Origins whose pages may call the API (KB_ALLOWED_ORIGINS). Same-origin callers need none. */
  allowedOrigins?: string[];
  rateLimit?: { limit: number; windowSeconds: number };
  confidence?: { high: number; medium: number };
  /** Retrieval tuning beyond the threshold (mode, candidate counts…); see server/retrieval. */
  retrieval?: Partial<RetrievalOptions>;
  /** A follow-up's repeat weight other than the one in use: only scripts/eval/thread-sweep.ts sets it. */
  repeatWeight?: number;
  streaming?: Partial<StreamOptions> & { maxConcurrent?: number };
  /** The open-stream accounting, when the entry needs to see it (the Node entry's graceful shutdown). */
  streams?: StreamSlots;
  /** Largest accepted request body (bytes). */
  maxBodyBytes?: number;
  /**
   * Admit chat and search requests to a latency budget (the Node entry, on PGlite or PostgreSQL): those
   * expected to take longer get 503 + Retry-After (see http/admission.ts). Unset: no bound (Workers + Supabase).
   */
  admission?: AdmissionOptions;
  /**
   * Webhook delivery (server/webhooks): `question.refused` and `answer.rated` are emitted here; none when
   * unset. The entry builds it for its runtime (Node: guarded POSTs, drained on shutdown; Workers: fetch
   * kept alive with waitUntil).
   */
  webhooks?: Webhooks;
  /** KB_WEBHOOK_URL / KB_WEBHOOK_SECRET as the console shows them (the secret only as set or not). */
  webhookDefaults?: { url: string | null; secretSet: boolean };
  /** The site-owner console's runtime-specific parts (server/console); everything else it needs is above. */
  admin?: {
    /** Node: embed a question on the server for "try a question". */
    embedQuestion?: EmbedQuestion;
    /** Node: run the ingestion pipeline on uploads. */
    uploader?: AdminUploader;
    /** Supabase: relay Auth's password grant (server/console/session.ts). */
    passwordSignIn?: (email: string, password: string) => Promise<AdminSession>;
    /** Requests per admin per window (default 300 a minute). */
    rateLimit?: { limit: number; windowSeconds: number };
    /** `POST /api/admin/session` and `/password` together, per client network; none when unset. */
    signInLimiter?: ClientLimiter;
    /** Rows per database page of an export (default 500). */
    exportPageRows?: number;
  };
}

/** The AppDeps fields that come straight from configuration. */
export function depsFromConfig(config: Config) {
  return {
    jwtSecret: config.jwtSecret,
    jwksUrl: config.jwksUrl,
    jwtIssuer: config.jwtIssuer,
    jwtAudience: config.jwtAudience,
    evidenceThreshold: config.evidenceThreshold,
    embedModel: config.embedModel,
    answerMode: config.answerMode,
    generationModel: config.generationModel,
    allowedOrigins: config.allowedOrigins,
    rateLimit: config.rateLimit,
    confidence: config.confidence,
    retrieval: config.retrieval,
  } satisfies Partial<AppDeps>;
}

export function createApp(deps: AppDeps) {
  const app = new Hono();
  const { store, localAuth, jwtSecret, evidenceThreshold, embedModel } = deps;
  const auth: TokenVerification = {
    secret: jwtSecret,
    jwksUrl: deps.jwksUrl ?? null,
    issuer: deps.jwtIssuer ?? null,
    audience: deps.jwtAudience ?? 'authenticated',
  };
  const rateLimit = deps.rateLimit ?? DEFAULT_RATE_LIMIT;
  const { maxConcurrent = DEFAULT_MAX_STREAMS, ...streamTuning } = deps.streaming ?? {};
  const streaming: StreamOptions = { heartbeatMs: 15_000, idleTimeoutMs: 30_000, deltaDelayMs: 45, ...streamTuning };
  const streams = deps.streams ?? new StreamSlots(maxConcurrent);

  // Bearer tokens, never cookies: no credentials, so an allow-list is all CORS needs (and `*` is allowed
  // only because no credentials ride along).
  const origins = deps.allowedOrigins ?? [];
  app.use(
    '/api/*',
    cors({
      origin: (origin) => (origins.includes('*') ? '*' : origins.includes(origin) ? origin : null),
      allowMethods: ['GET', 'POST', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'Last-Event-ID'],
      exposeHeaders: ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
      credentials: false,
      maxAge: 600,
    }),
  );
  app.use('/api/*', async function apiSecurityHeaders(c, next) {
    await next();
    setBaseSecurityHeaders(c.res.headers);
  });
  // The console's data (questions, answers, documents, tokens) and the tokens sign-in and refresh hand out
  // are one person's: no browser or shared cache may keep them. Registered before the body limit and the
  // routes, so refusals (401, 403, 413, 429) and errors carry it too.
  for (const path of [`${ADMIN_BASE}/*`, '/api/auth/*']) {
    app.use(path, async function noStore(c, next) {
      await next();
      c.res.headers.set('Cache-Control', 'no-store');
    });
  }
  // Server-Timing: the server's own time until the response starts (for a streamed answer: until the
  // answer is ready and its first event can be sent), so a client can tell server time from network and
  // its own queueing. Admission adds its queue wait beside it.
  app.use('/api/*', async function serverTiming(c, next) {
    const started = performance.now();
    await next();
    c.res.headers.append('Server-Timing', `app;dur=${(performance.now() - started).toFixed(1)}`);
  });
  // Admission before the body limit: a request turned away 503 never has its body read (in @hono/node-server
  // the first look at the body builds the whole web Request around it — most of what a 503 would cost).
  // After serverTiming, so a served request's `app` time includes its wait for a place.
  if (deps.admission) {
    const queue = new AdmissionQueue(deps.admission);
    app.use(API_PATHS.chat, admission(queue));
    app.use(API_PATHS.search, admission(queue));
    // An assistant's question is the same database work as a visitor's.
    app.use(MCP_PATH, admission(queue));
  }
  const tooLarge = (c: Context) => c.json(errorBody('payload_too_large', 'The request body is too large.'), 413);
  const defaultLimit = declaredBodyLimit({ maxSize: deps.maxBodyBytes ?? 64 * 1024, onError: tooLarge });
  // A console upload carries a document (multipart overhead included); nothing else may.
  const uploadLimit = declaredBodyLimit({ maxSize: UPLOAD_MAX_BYTES + 64 * 1024, onError: tooLarge });
  app.use('/api/*', function bodyLimits(c, next) {
    return (c.req.path === ADMIN_PATHS.uploads ? uploadLimit : defaultLimit)(c, next);
  });

  app.get(API_PATHS.health, async function health(c) {
    const kb = await store.kbStats().catch((error) => {
      throw fromStoreError(error);
    });
    return c.json<Health>({ status: 'ok', embed_model: embedModel, evidence_threshold: evidenceThreshold, kb });
  });

  const chatRetrieval: RetrievalOptions = {
    ...deps.retrieval,
    evidenceThreshold,
    ...(deps.confidence ? { confidence: deps.confidence } : {}),
  };
  const settingsDefaults: SettingsDefaults = {
    answerMode: deps.answerMode ?? DEFAULT_ANSWER_MODE,
    retrieval: chatRetrieval,
    webhook: deps.webhookDefaults ?? { url: null, secretSet: false },
  };
  // Read per use (never cached), so an admin's change applies at once on every instance and isolate. The
  // widget must load even when the database does not answer: then the server's defaults apply.
  const readSettings = settingsReader(store, settingsDefaults);
  app.get(API_PATHS.config, async function clientConfig(c) {
    const settings = await readSettings();
    return c.json<ClientConfig>({
      answer_mode: settings.answerMode,
      ...(settings.greeting ? { greeting: settings.greeting } : {}),
      ...(settings.supportUrl ? { support_url: settings.supportUrl } : {}),
      ...(settings.starters.length > 0 ? { starters: settings.starters } : {}),
      generation_model: deps.generationModel ?? DEFAULT_GENERATION_MODEL,
      embed_model: embedModel,
      dimensions: 384,
      models_url: deps.modelsUrl ?? '/models/',
      ort_wasm_url: deps.ortWasmUrl ?? '/ort/',
      ...(deps.captcha ? { captcha: deps.captcha.config } : {}),
    });
  });

  const local = localAuth && jwtSecret ? localAnonymousAuth(localAuth, jwtSecret) : null;
  const signIn = deps.anonymousSignIn ?? local?.signIn;
  if (signIn) {
    app.route(
      '/api/auth',
      authRoute({
        signIn,
        refresh: deps.refreshSignIn ?? local?.refresh,
        signupLimiter: deps.signupLimiter,
        refreshLimiter: deps.refreshLimiter,
        clientIp: deps.clientIp,
        captcha: deps.captcha,
      }),
    );
  }

  app.route(
    API_PATHS.chat,
    chatRoute({
      store,
      auth,
      rateLimit,
      retrieval: chatRetrieval,
      streaming,
      streams,
      settings: readSettings,
      generationModel: deps.generationModel ?? DEFAULT_GENERATION_MODEL,
      webhooks: deps.webhooks,
      ...(deps.repeatWeight !== undefined ? { repeatWeight: deps.repeatWeight } : {}),
    }),
  );
  app.route(API_PATHS.search, searchRoute({ store, auth, rateLimit }));
  // For coding assistants: the same questions and pages, without the widget (docs/mcp.md).
  app.route(
    MCP_PATH,
    mcpRoute({
      store,
      auth,
      signIn,
      signupLimiter: deps.signupLimiter,
      clientIp: deps.clientIp,
      rateLimit,
      retrieval: chatRetrieval,
      settings: readSettings,
      webhooks: deps.webhooks,
    }),
  );
  app.route('/', llmsRoute({ store }));
  app.route(API_PATHS.sessions, historyRoute({ store, auth }));
  app.route(API_PATHS.chunks, chunksRoute({ store, auth }));
  app.route(API_PATHS.feedback, feedbackRoute({ store, auth, rateLimit, webhooks: deps.webhooks }));
  app.route(
    ADMIN_BASE,
    adminRoute({
      store,
      auth,
      settings: settingsDefaults,
      rateLimit: deps.admin?.rateLimit,
      embedQuestion: deps.admin?.embedQuestion,
      uploader: deps.admin?.uploader,
      exportPageRows: deps.admin?.exportPageRows,
      // The console may set the webhook only where the server reads it back (the embedded store's own
      // connection); a Worker holds no key that can, so there the webhook is its environment's.
      webhookSetting: typeof store.webhookTarget === 'function',
      ...(deps.webhooks
        ? { webhookStats: () => deps.webhooks!.stats(), webhookChanged: () => deps.webhooks!.forgetTarget() }
        : {}),
      signIn: {
        ...(localAuth && jwtSecret
          ? { link: { secret: jwtSecret, consume: (jti: string) => localAuth.consumeAdminLink(jti) } }
          : {}),
        ...(deps.admin?.passwordSignIn ? { password: deps.admin.passwordSignIn } : {}),
        ...(deps.admin?.signInLimiter ? { limiter: deps.admin.signInLimiter, clientIp: deps.clientIp } : {}),
      },
    }),
  );

  app.notFound((c) =>
    c.req.path.startsWith('/api/')
      ? c.json(errorBody('not_found', `No endpoint ${c.req.method} ${c.req.path}.`), 404)
      : c.text('Not found', 404),
  );
  app.onError(onAppError);
  return app;
}

/**
 * Local mode: create the auth.users row, then sign the token ourselves with the JWT secret; a refresh token
 * (used once, rotated within its family) renews it for the same user, so a visitor keeps their history past
 * the token's hour — for at most SESSION_LIFETIME_SECONDS from the sign-in; a reused one ends the family.
 */
function localAnonymousAuth(localAuth: LocalAuthStore, jwtSecret: string) {
  const session = async (userId: string, refreshToken: string): Promise<AnonymousAuth> => ({
    access_token: await issueAccessToken(userId, jwtSecret),
    user_id: userId,
    expires_in: TOKEN_TTL_SECONDS,
    refresh_token: refreshToken,
  });
  return {
    signIn: async () => {
      const userId = await localAuth.createAnonymousUser();
      return session(userId, await localAuth.createRefreshToken(userId, REFRESH_TTL_SECONDS, SESSION_LIFETIME_SECONDS));
    },
    refresh: async (refreshToken: string) => {
      const rotated = await localAuth.rotateRefreshToken(refreshToken, REFRESH_TTL_SECONDS);
      if (!rotated) throw invalidRefreshToken();
      return session(rotated.userId, rotated.refreshToken);
    },
  };
}
