/** Paths and the small JSON bodies of the non-chat endpoints. */
import * as v from 'valibot';

export const API_PATHS = {
  chat: '/api/chat',
  health: '/api/health',
  config: '/api/config',
  anonymousAuth: '/api/auth/anonymous',
  refreshAuth: '/api/auth/refresh',
  sessions: '/api/sessions',
  search: '/api/search',
  gaps: '/api/admin/gaps',
  settings: '/api/admin/settings',
  chunks: '/api/chunks',
  feedback: '/api/feedback',
} as const;

/** `GET /api/chunks/:id`: the full text of a cited passage. */
export const ChunkSchema = v.object({
  chunk_id: v.string(),
  content: v.string(),
  title: v.string(),
  section: v.nullable(v.string()),
  page: v.nullable(v.number()),
  url: v.nullable(v.string()),
});
export type Chunk = v.InferOutput<typeof ChunkSchema>;

/**
 * `POST /api/auth/anonymous` (a new anonymous user) and `POST /api/auth/refresh` (a new access token for the
 * same user): Supabase Auth's anonymous sign-in and refresh, or the local stand-ins. The access token lives
 * `expires_in` seconds (an hour); the refresh token, used once, gets the next one.
 */
export const AnonymousAuthSchema = v.object({
  access_token: v.string(),
  user_id: v.string(),
  expires_in: v.number(),
  refresh_token: v.optional(v.string()),
});
export type AnonymousAuth = v.InferOutput<typeof AnonymousAuthSchema>;

/**
 * `POST /api/auth/anonymous` body: empty, or the CAPTCHA token when the server asks for one (`captcha` in
 * `/api/config`).
 */
export const AnonymousAuthRequestSchema = v.object({
  captcha_token: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(4096, 'must be at most 4096 characters'))),
});

export const RefreshAuthRequestSchema = v.object({
  refresh_token: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(512, 'must be at most 512 characters')),
});
export type RefreshAuthRequest = v.InferOutput<typeof RefreshAuthRequestSchema>;

/**
 * `GET /api/config`: what a browser needs to embed questions exactly as the documents were embedded.
 * URLs are relative to the API origin unless absolute.
 */
/**
 * How answers are written (issue 13): `extractive` quotes the passages (the default); `generative` also has
 * the visitor's browser write a fuller answer from the cited passages with a small on-device model.
 */
export const AnswerModeSchema = v.picklist(['extractive', 'generative'], 'must be extractive or generative');
export type AnswerMode = v.InferOutput<typeof AnswerModeSchema>;

/** A CAPTCHA the widget must solve before an anonymous sign-in (Cloudflare Turnstile). */
export const CaptchaConfigSchema = v.object({
  provider: v.literal('turnstile'),
  site_key: v.string(),
  /** Turnstile's script (Cloudflare's, with `render=explicit`). */
  script_url: v.string(),
});
export type CaptchaConfig = v.InferOutput<typeof CaptchaConfigSchema>;

export const ClientConfigSchema = v.object({
  embed_model: v.string(),
  dimensions: v.number(),
  models_url: v.string(),
  ort_wasm_url: v.string(),
  captcha: v.optional(CaptchaConfigSchema),
  answer_mode: v.optional(AnswerModeSchema),
  /** Generative mode: the model id the widget loads from `models_url` (KB_GENERATION_MODEL). */
  generation_model: v.optional(v.string()),
});
export type ClientConfig = v.InferOutput<typeof ClientConfigSchema>;

/** `GET /api/health`: liveness plus knowledge-base statistics (seed 004). */
export interface Health {
  status: 'ok';
  embed_model: string;
  evidence_threshold: number;
  kb: { documents: number; ready_documents: number; chunks: number; embeddings: number };
}

/** `GET/PUT /api/admin/settings` (admins): what an admin may change at runtime, stored in the database. */
export const SettingsUpdateSchema = v.object({
  /** null clears the admin's choice: the server's KB_ANSWER_MODE applies again. */
  answer_mode: v.nullable(AnswerModeSchema),
});
export type SettingsUpdate = v.InferOutput<typeof SettingsUpdateSchema>;

export interface Settings {
  /** In effect: the admin's choice, else the server's default. */
  answer_mode: AnswerMode;
  /** Where it comes from: `admin` (stored) or `server` (KB_ANSWER_MODE, default extractive). */
  answer_mode_source: 'admin' | 'server';
  /** The server's default, what `answer_mode: null` returns to. */
  server_answer_mode: AnswerMode;
  updated_at: string;
}
