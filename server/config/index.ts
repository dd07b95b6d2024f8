/**
 * Configuration from environment variables, read once at the edge (Node entry, Worker entry, scripts) and
 * passed into the runtime-agnostic core. Every variable is documented in docs/configuration.md.
 */
import * as v from 'valibot';
import { AnswerModeSchema, WEBHOOK_SECRET_MIN_CHARS, type AnswerMode } from '../../protocol/api.ts';
import { retrievalFromEnv } from '../retrieval/config.ts';
import { webhookUrlProblem } from '../webhooks/url.ts';
import {
  DEFAULT_ANSWER_MODE,
  DEFAULT_CONFIDENCE,
  DEFAULT_EMBED_MODEL,
  DEFAULT_EVIDENCE_THRESHOLD,
  DEFAULT_GENERATION_MODEL,
  DEFAULT_RATE_LIMIT,
} from './defaults.ts';
import type { RetrievalOptions } from '../retrieval/index.ts';

export interface Config {
  /** KB_EMBED_MODEL: transformers.js model id used for documents and questions alike. */
  embedModel: string;
  /** KB_MODEL_DIR: local folder holding `<model id>/…`; when set, nothing is fetched remotely. */
  modelDir: string | null;
  /** KB_DATA_DIR: PGlite data directory. */
  dataDir: string;
  /** KB_JWT_SECRET: HS256 secret for access tokens (Supabase's JWT secret in production). */
  jwtSecret: string | null;
  /**
   * KB_ANSWER_WRITE_KEY: the key the server writes answers with (server/store/answer-key.ts). Workers: required
   * (a secret); Node: unset, one is kept in KB_DATA_DIR.
   */
  answerWriteKey: string | null;
  /** CHAT_EVIDENCE_THRESHOLD: minimum cosine similarity of the best chunk to answer at all. */
  evidenceThreshold: number;
  /** PORT: where the Node server listens. */
  port: number;
  /** KB_JWKS_URL: where asymmetric signing keys are published (Supabase: <project>/auth/v1/.well-known/jwks.json). */
  jwksUrl: string | null;
  /** KB_JWT_ISSUER: expected `iss` of tokens, when set. */
  jwtIssuer: string | null;
  /** KB_JWT_AUDIENCE: expected `aud` of tokens. */
  jwtAudience: string;
  /** KB_ALLOWED_ORIGINS: comma-separated origins whose pages may call the API (the sites embedding the widget). */
  allowedOrigins: string[];
  /** KB_RATE_LIMIT / KB_RATE_LIMIT_WINDOW: requests per visitor per window (seconds) on chat and search. */
  rateLimit: { limit: number; windowSeconds: number };
  /** CHAT_CONFIDENCE_HIGH / CHAT_CONFIDENCE_MEDIUM: best-chunk scores from which confidence is high / medium. */
  confidence: { high: number; medium: number };
  /** CHAT_LEXICAL_THRESHOLD / CHAT_HYBRID_THRESHOLD: the evidence gate of lexical and hybrid mode (server/retrieval). */
  retrieval: Partial<RetrievalOptions>;
  /** KB_MAX_WAIT_MS: Node server only — the latency budget of admission: a question expected to take longer to start its answer gets 503 + Retry-After. */
  maxWaitMs: number;
  /** KB_SHUTDOWN_GRACE_MS: embedded server only — on SIGTERM/SIGINT, how long open answers may take to finish. */
  shutdownGraceMs: number;
  /** KB_DB_TIMEOUT_MS: Workers only — one Supabase call's limit; idempotent calls are retried for up to twice that. */
  dbTimeoutMs: number;
  /**
   * KB_SIGNUP_LIMIT / KB_SIGNUP_WINDOW: embedded server only — anonymous sign-ups per client IP per window
   * (seconds); 0 turns the limit off. Workers use the SIGNUP_LIMITER binding in wrangler.toml instead.
   */
  signupLimit: { limit: number; windowSeconds: number };
  /**
   * KB_REFRESH_LIMIT / KB_REFRESH_WINDOW: embedded server only — `POST /api/auth/refresh` per client network
   * per window; 0 turns it off. Workers: the REFRESH_LIMITER binding.
   */
  refreshLimit: { limit: number; windowSeconds: number };
  /**
   * KB_ADMIN_SIGNIN_LIMIT / KB_ADMIN_SIGNIN_WINDOW: embedded server only — console sign-in attempts
   * (`/api/admin/session` and `/password` together) per client network per window; 0 turns it off.
   * Workers: the ADMIN_SIGNIN_LIMITER binding.
   */
  adminSignInLimit: { limit: number; windowSeconds: number };
  /** KB_ANSWER_MODE: how answers are written unless an admin chose otherwise (`/api/admin/settings`). */
  answerMode: AnswerMode;
  /**
   * KB_GENERATION_MODEL: the instruct model the widget writes answers with in generative mode, loaded from
   * `models_url` like the embedder (transformers.js layout, ONNX q4 weights).
   */
  generationModel: string;
  /**
   * KB_CAPTCHA_SITE_KEY / KB_CAPTCHA_SECRET / KB_CAPTCHA_VERIFY_URL / KB_CAPTCHA_SCRIPT_URL: Cloudflare
   * Turnstile before anonymous sign-ups (off unless the site key is set).
   */
  captcha: { siteKey: string; secret: string | null; verifyUrl: string | null; scriptUrl: string | null } | null;
  /**
   * KB_WEBHOOK_URL / KB_WEBHOOK_SECRET: where events are POSTed and the HMAC key they are signed with (an
   * admin's console setting wins on the Node server). KB_WEBHOOK_ALLOW_LOOPBACK=1: also plain http to
   * loopback, for a receiver under development.
   */
  webhook: { url: string | null; secret: string | null; allowLoopback: boolean };
}

export { DEFAULT_EMBED_MODEL, DEFAULT_EVIDENCE_THRESHOLD, DEFAULT_GENERATION_MODEL } from './defaults.ts';

type Env = Record<string, string | undefined>;

export function readConfig(env: Env): Config {
  return {
    embedModel: nonEmpty(env.KB_EMBED_MODEL) ?? DEFAULT_EMBED_MODEL,
    modelDir: nonEmpty(env.KB_MODEL_DIR),
    dataDir: nonEmpty(env.KB_DATA_DIR) ?? '.kb-data',
    jwtSecret: strongSecret(nonEmpty(env.KB_JWT_SECRET), 'KB_JWT_SECRET'),
    answerWriteKey: nonEmpty(env.KB_ANSWER_WRITE_KEY),
    evidenceThreshold: number(env, 'CHAT_EVIDENCE_THRESHOLD', DEFAULT_EVIDENCE_THRESHOLD, 0, 1),
    port: number(env, 'PORT', 8787, 0, 65535),
    jwksUrl: nonEmpty(env.KB_JWKS_URL),
    jwtIssuer: nonEmpty(env.KB_JWT_ISSUER),
    jwtAudience: nonEmpty(env.KB_JWT_AUDIENCE) ?? 'authenticated',
    allowedOrigins: (env.KB_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim().replace(/\/$/, ''))
      .filter(Boolean),
    rateLimit: {
      limit: number(env, 'KB_RATE_LIMIT', DEFAULT_RATE_LIMIT.limit, 1, 1_000_000),
      windowSeconds: number(env, 'KB_RATE_LIMIT_WINDOW', DEFAULT_RATE_LIMIT.windowSeconds, 1, 86_400),
    },
    retrieval: retrievalFromEnv(env),
    maxWaitMs: number(env, 'KB_MAX_WAIT_MS', 500, 1, 60_000),
    shutdownGraceMs: number(env, 'KB_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    dbTimeoutMs: number(env, 'KB_DB_TIMEOUT_MS', 4_000, 100, 30_000),
    // Supabase's own default for anonymous sign-ins: 30 an hour per IP.
    captcha: nonEmpty(env.KB_CAPTCHA_SITE_KEY)
      ? {
          siteKey: nonEmpty(env.KB_CAPTCHA_SITE_KEY)!,
          secret: nonEmpty(env.KB_CAPTCHA_SECRET),
          verifyUrl: nonEmpty(env.KB_CAPTCHA_VERIFY_URL),
          scriptUrl: nonEmpty(env.KB_CAPTCHA_SCRIPT_URL),
        }
      : null,
    answerMode: answerMode(env.KB_ANSWER_MODE),
    generationModel: nonEmpty(env.KB_GENERATION_MODEL) ?? DEFAULT_GENERATION_MODEL,
    signupLimit: {
      limit: number(env, 'KB_SIGNUP_LIMIT', 30, 0, 1_000_000),
      windowSeconds: number(env, 'KB_SIGNUP_WINDOW', 3600, 1, 86_400),
    },
    // A widget renews once an hour per open tab: 60 a minute leaves room for a whole office behind one NAT.
    refreshLimit: {
      limit: number(env, 'KB_REFRESH_LIMIT', 60, 0, 1_000_000),
      windowSeconds: number(env, 'KB_REFRESH_WINDOW', 60, 1, 86_400),
    },
    // A person signs in to the console a few times a day; 5 a minute is typing a password wrong four times.
    adminSignInLimit: {
      limit: number(env, 'KB_ADMIN_SIGNIN_LIMIT', 5, 0, 1_000_000),
      windowSeconds: number(env, 'KB_ADMIN_SIGNIN_WINDOW', 60, 1, 86_400),
    },
    webhook: webhookConfig(env),
    confidence: {
      high: number(env, 'CHAT_CONFIDENCE_HIGH', DEFAULT_CONFIDENCE.high, 0, 1),
      medium: number(env, 'CHAT_CONFIDENCE_MEDIUM', DEFAULT_CONFIDENCE.medium, 0, 1),
    },
  };
}

/** HS256's key is the secret's UTF-8 bytes; below the hash's own 32 bytes it is the weakest link. */
export const MIN_JWT_SECRET_BYTES = 32;

/**
 * Refuses a JWT secret shorter than 32 bytes, at start-up: anyone holding one token the server signed can
 * try secrets offline, and a short one is found; with it they sign admin and service tokens.
 */
export function strongSecret(secret: string | null, name: string): string | null {
  if (secret === null) return null;
  const bytes = new TextEncoder().encode(secret).length;
  if (bytes >= MIN_JWT_SECRET_BYTES) return secret;
  throw new Error(
    `${name} is ${bytes} bytes long; it must be at least ${MIN_JWT_SECRET_BYTES}: a shorter secret can be guessed offline from any token it signed. ` +
      `Make one with \`openssl rand -base64 32\` or \`node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"\`, ` +
      `or leave it unset: the Node server then keeps a random one in KB_DATA_DIR, and a Worker verifies tokens with the Supabase project's signing keys.`,
  );
}

/** A webhook URL the server would refuse, or a secret too short to sign with, stops the start. */
function webhookConfig(env: Env): Config['webhook'] {
  const url = nonEmpty(env.KB_WEBHOOK_URL);
  const secret = nonEmpty(env.KB_WEBHOOK_SECRET);
  const allowLoopback = ['1', 'true', 'yes'].includes((nonEmpty(env.KB_WEBHOOK_ALLOW_LOOPBACK) ?? '').toLowerCase());
  const problem = url === null ? null : webhookUrlProblem(url, allowLoopback);
  if (problem) throw new Error(`KB_WEBHOOK_URL ${problem}`);
  if (secret !== null && secret.length < WEBHOOK_SECRET_MIN_CHARS) {
    throw new Error(
      `KB_WEBHOOK_SECRET must be at least ${WEBHOOK_SECRET_MIN_CHARS} characters (e.g. \`openssl rand -hex 32\`): receivers check signatures with it`,
    );
  }
  return { url, secret, allowLoopback };
}

function answerMode(raw: string | undefined): AnswerMode {
  const value = nonEmpty(raw) ?? DEFAULT_ANSWER_MODE;
  if (!v.is(AnswerModeSchema, value))
    throw new Error(`KB_ANSWER_MODE must be extractive or generative, got "${value}"`);
  return value;
}

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function number(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === null) return fallback;
  const value = Number(raw);
  // A typo in a threshold silently changing what gets answered is worse than refusing to start.
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new Error(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}
