/** Paths and the small JSON bodies of the non-chat endpoints. */
import * as v from 'valibot';
import { isSupportUrl, STARTER_MAX_CHARS, STARTERS_MAX, SUPPORT_URL_MAX_CHARS } from './support.ts';

export const API_PATHS = {
  chat: '/api/chat',
  health: '/api/health',
  config: '/api/config',
  anonymousAuth: '/api/auth/anonymous',
  refreshAuth: '/api/auth/refresh',
  sessions: '/api/sessions',
  search: '/api/search',
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
  captcha_token: v.optional(
    v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(4096, 'must be at most 4096 characters')),
  ),
});

export const RefreshAuthRequestSchema = v.object({
  refresh_token: v.pipe(
    v.string(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(512, 'must be at most 512 characters'),
  ),
});
export type RefreshAuthRequest = v.InferOutput<typeof RefreshAuthRequestSchema>;

/**
 * `GET /api/config`: what a browser needs to embed questions exactly as the documents were embedded.
 * URLs are relative to the API origin unless absolute.
 */
/**
 * How answers are written: `extractive` quotes the passages (the default); `generative` also has
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
  /** An admin's greeting (`/api/admin/settings`); the page's `greeting` attribute wins over it. */
  greeting: v.optional(v.string()),
  /** An admin's support address (https: or mailto:) for "Contact support"; the `support-url` attribute wins. */
  support_url: v.optional(v.string()),
  /** An admin's starter questions for the empty panel (at most 4); the `starters` attribute wins. */
  starters: v.optional(v.array(v.string())),
});
export type ClientConfig = v.InferOutput<typeof ClientConfigSchema>;

/** `GET /api/health`: liveness plus knowledge-base statistics. */
export interface Health {
  status: 'ok';
  embed_model: string;
  evidence_threshold: number;
  kb: { documents: number; ready_documents: number; chunks: number; embeddings: number };
}

/** Bounds of the settings, the same as kb_settings' CHECKs and kb_set_settings' checks. */
export const GREETING_MAX_CHARS = 500;
export const REFUSAL_SUGGESTIONS_MAX = 5;
export const REFUSAL_SUGGESTION_MAX_CHARS = 120;
export const WEBHOOK_URL_MAX_CHARS = 2000;
export const WEBHOOK_SECRET_MIN_CHARS = 32;
export const WEBHOOK_SECRET_MAX_CHARS = 256;

const Threshold = v.pipe(
  v.number('must be a number'),
  v.finite('must be a number'),
  v.minValue(0, 'must be from 0 to 1'),
  v.maxValue(1, 'must be from 0 to 1'),
);

/** A list of at most `items` trimmed, non-empty strings of at most `chars` characters (suggestions, starters). */
const shortTexts = (items: number, chars: number) =>
  v.pipe(
    v.array(
      v.pipe(
        v.string('must be a string'),
        v.trim(),
        v.minLength(1, 'must not be empty'),
        v.maxLength(chars, `must be at most ${chars} characters`),
      ),
      'must be a list of strings',
    ),
    v.maxLength(items, `must have at most ${items} items`),
  );

/**
 * `PUT /api/admin/settings` (admins): what an admin may change at runtime, stored in the database. A patch:
 * the fields present are set, `null` clears one (the server's default applies again), absent ones stay.
 */
export const SettingsUpdateSchema = v.pipe(
  v.looseObject(
    {
      answer_mode: v.optional(v.nullable(AnswerModeSchema)),
      /** The gate's threshold in vector mode (cosine; CHAT_EVIDENCE_THRESHOLD). */
      evidence_threshold: v.optional(v.nullable(Threshold)),
      /** … in lexical mode (coverage; CHAT_LEXICAL_THRESHOLD). */
      lexical_threshold: v.optional(v.nullable(Threshold)),
      /** … in hybrid mode (mean of cosine and coverage; CHAT_HYBRID_THRESHOLD). */
      hybrid_threshold: v.optional(v.nullable(Threshold)),
      /** The widget's greeting when the page sets no `greeting` attribute. */
      greeting: v.optional(
        v.nullable(
          v.pipe(
            v.string('must be a string'),
            v.trim(),
            v.minLength(1, "must not be empty (null: the widget's own greeting)"),
            v.maxLength(GREETING_MAX_CHARS, `must be at most ${GREETING_MAX_CHARS} characters`),
          ),
        ),
      ),
      /** What a "no evidence" refusal offers the visitor; [] offers none. */
      refusal_suggestions: v.optional(v.nullable(shortTexts(REFUSAL_SUGGESTIONS_MAX, REFUSAL_SUGGESTION_MAX_CHARS))),
      /**
       * Where events are POSTed (docs/api.md, "Webhooks"): https, or http to loopback for a development receiver.
       * null: KB_WEBHOOK_URL applies. Stored in the database; only admins read it back.
       */
      webhook_url: v.optional(
        v.nullable(
          v.pipe(
            v.string('must be a string'),
            v.trim(),
            v.maxLength(WEBHOOK_URL_MAX_CHARS, `must be at most ${WEBHOOK_URL_MAX_CHARS} characters`),
            v.regex(/^https?:\/\/[^\s]+$/i, 'must be an https URL'),
          ),
        ),
      ),
      /** The signing secret. Write-only: no response ever contains it (`webhook_secret_set` says whether one is set). */
      webhook_secret: v.optional(
        v.nullable(
          v.pipe(
            v.string('must be a string'),
            v.minLength(WEBHOOK_SECRET_MIN_CHARS, `must be at least ${WEBHOOK_SECRET_MIN_CHARS} characters`),
            v.maxLength(WEBHOOK_SECRET_MAX_CHARS, `must be at most ${WEBHOOK_SECRET_MAX_CHARS} characters`),
          ),
        ),
      ),
      /** Where "Contact support" under a refusal leads: an https: or mailto: address, `{question}` optional. */
      support_url: v.optional(
        v.nullable(
          v.pipe(
            v.string('must be a string'),
            v.trim(),
            v.check(
              (url: string) => isSupportUrl(url),
              `must be an https: or mailto: address of at most ${SUPPORT_URL_MAX_CHARS} characters, without spaces`,
            ),
          ),
        ),
      ),
      /** Questions the empty panel offers as chips; [] offers none. */
      starters: v.optional(v.nullable(shortTexts(STARTERS_MAX, STARTER_MAX_CHARS))),
    },
    'must be an object',
  ),
  // An unknown key is the body's fault, named in the message (a key need not be a valid field name).
  v.check(
    (update) => Object.keys(update).every((key) => SETTING_NAMES.includes(key)),
    (issue) =>
      `unknown setting ${JSON.stringify(
        Object.keys(issue.input as object)
          .find((key) => !SETTING_NAMES.includes(key))
          ?.slice(0, 40),
      )}`,
  ),
  v.check((update) => Object.keys(update).length > 0, 'must name at least one setting'),
);
const SETTING_NAMES: readonly string[] = [
  'answer_mode',
  'evidence_threshold',
  'lexical_threshold',
  'hybrid_threshold',
  'greeting',
  'refusal_suggestions',
  'support_url',
  'starters',
  'webhook_url',
  'webhook_secret',
];
export type SettingsUpdate = v.InferOutput<typeof SettingsUpdateSchema>;

/** Where a setting in effect comes from: `admin` (stored by kb_set_settings) or `server` (its default). */
export type SettingSource = 'admin' | 'server';

/**
 * `GET/PUT /api/admin/settings`: for every setting, the value in effect, its source and the server's
 * default (what `null` returns to) — `answer_mode`, `answer_mode_source`, `server_answer_mode`, and so on.
 */
export interface Settings {
  /** In effect: the admin's choice, else the server's default. */
  answer_mode: AnswerMode;
  /** Where it comes from: `admin` (stored) or `server` (KB_ANSWER_MODE, default extractive). */
  answer_mode_source: SettingSource;
  /** The server's default, what `answer_mode: null` returns to. */
  server_answer_mode: AnswerMode;
  evidence_threshold: number;
  evidence_threshold_source: SettingSource;
  server_evidence_threshold: number;
  lexical_threshold: number;
  lexical_threshold_source: SettingSource;
  server_lexical_threshold: number;
  hybrid_threshold: number;
  hybrid_threshold_source: SettingSource;
  server_hybrid_threshold: number;
  /** null: no greeting set here; the widget shows its own (or its `greeting` attribute). */
  greeting: string | null;
  greeting_source: SettingSource;
  server_greeting: null;
  refusal_suggestions: string[];
  refusal_suggestions_source: SettingSource;
  server_refusal_suggestions: string[];
  /** null: none set here; the widget's `support-url` attribute, else no "Contact support". */
  support_url: string | null;
  support_url_source: SettingSource;
  server_support_url: null;
  /** [] when none is set here: the widget's `starters` attribute, else none. */
  starters: string[];
  starters_source: SettingSource;
  server_starters: string[];
  /** Where events are POSTed: the admin's URL, else KB_WEBHOOK_URL; null: no webhook. */
  webhook_url: string | null;
  webhook_url_source: SettingSource;
  /** Whether a signing secret is set (the admin's, else KB_WEBHOOK_SECRET). The secret itself is never sent. */
  webhook_secret_set: boolean;
  webhook_secret_source: SettingSource;
  /**
   * Whether this server reads a webhook set here: the Node server does; a Worker does not (it holds no key
   * that may read the secret back), so there the webhook is KB_WEBHOOK_URL / KB_WEBHOOK_SECRET.
   */
  webhook_editable: boolean;
  /** The latest change of the URL set here: when, by which user id, old → new host (null: never changed). */
  webhook_last_change: WebhookChange | null;
  /**
   * Only in the answer to the PUT that set a URL without a secret: the secret the server generated for it.
   * Shown once; no later response contains it.
   */
  webhook_secret_generated?: string;
  /** This server process's deliveries since it started (null: it sends none). */
  webhook_deliveries: WebhookDeliveries | null;
  updated_at: string;
}

/** Counted by the webhook queue: events waiting or in delivery, delivered, given up on, and dropped. */
export interface WebhookDeliveries {
  queued: number;
  delivered: number;
  failed: number;
  /** Dropped because the queue was full. */
  dropped_queue_full: number;
  /** Dropped because their event type had used its deliveries for the minute. */
  dropped_rate_limited: number;
}

export interface WebhookChange {
  changed_at: string;
  changed_by: string | null;
  old_host: string | null;
  new_host: string | null;
}
