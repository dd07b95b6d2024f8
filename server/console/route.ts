/**
 * The admin API (`/api/admin/*`) behind the site-owner console. Admins only — a JWT whose
 * `app_metadata.role` is `admin`: 401 without a token, 403 for anyone else, and each SQL function checks
 * the claim itself, so the rule holds whichever API calls it. Every endpoint is rate limited (in the
 * database, per admin), validated (400 naming the field) and paginated where it lists.
 * - `GET /gaps`, `PUT /gaps`: refused questions, grouped and counted; mark one done (or open again).
 * - `GET /conversations`: questions with their answer, citations, confidence, mode and rating.
 * - `GET /conversations/:session_id`: one conversation as a thread, its turns oldest first.
 * - `GET /documents`, `PUT /documents/:id`, `DELETE /documents/:id`; uploads: ./upload.ts (Node only).
 * - `GET /overview`: questions per day, answered vs refused, median confidence, 👍/👎 (computed in SQL).
 * - `POST /try`: the retrieval debugger (./try.ts); `GET/PUT /settings`; `GET /me`.
 * - `GET /export/{conversations|gaps|feedback}`: CSV or JSON for a date range, streamed (./export/route.ts).
 * - `POST /session`, `POST /password`: sign-in (./session.ts), the only routes without a token.
 */
import { Hono } from 'hono';
import * as v from 'valibot';
import {
  type AdminThread,
  ConversationsQuerySchema,
  DocumentsQuerySchema,
  DocumentUpdateSchema,
  GapsQuerySchema,
  GapUpdateSchema,
  OverviewQuerySchema,
  SettingsUpdateSchema,
  TryRequestSchema,
  type AdminMe,
  type Settings,
  ADMIN_BASE,
  ADMIN_PATHS,
  pathUnder,
} from '../../protocol/index.ts';
import { requireAuth, type AuthVariables, type TokenVerification } from '../auth/jwt.ts';
import { parseBody, readJson } from '../http/body.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import { rateLimit } from '../http/rate-limit.ts';
import { DEFAULT_ANSWER_MODE, DEFAULT_EVIDENCE_THRESHOLD } from '../config/defaults.ts';
import { adminSettings, settingsReader, type SettingsDefaults } from '../settings/runtime.ts';
import { StoreError, type ChatStore, type ContentGap, type JwtClaims } from '../store/types.ts';
import { assistantsRoute } from './assistants.ts';
import type { WebhookStats } from '../webhooks/dispatcher.ts';
import { webhookPair } from '../webhooks/pair.ts';
import { exportRoute } from './export/route.ts';
import { requireFreshSignIn } from './fresh-sign-in.ts';
import { sessionRoute, type AdminSignIn } from './session.ts';
import { tryQuestion, type EmbedQuestion } from './try.ts';
import { uploadRoute, type AdminUploader } from './upload.ts';

export interface AdminRouteOptions {
  store: ChatStore;
  auth: TokenVerification;
  /**
   * The server's defaults of every setting, the chat endpoint's retrieval options among them: "try a
   * question" merges the stored settings into them as the chat does, so it decides as a visitor's question is decided.
   */
  settings?: SettingsDefaults;
  /** Requests per admin per window; default 300 a minute (a console page makes a few calls per view). */
  rateLimit?: { limit: number; windowSeconds: number };
  /** Embeds a question on the server (Node: the ingestion model); without it, the console's embedding or keywords. */
  embedQuestion?: EmbedQuestion;
  /** Runs the ingestion pipeline on an upload (Node only); without it, uploads answer 501 (use the CLI). */
  uploader?: AdminUploader;
  signIn?: AdminSignIn;
  /** Rows per database page of an export (default 500); tests make it small to cross many pages. */
  exportPageRows?: number;
  /** Whether this server reads back a webhook set in the console (the embedded store: yes; a Worker: no). */
  webhookSetting?: boolean;
  /** This process's webhook deliveries (queued, delivered, failed, dropped), shown with the settings. */
  webhookStats?: () => WebhookStats;
  /**
   * Called once the webhook was changed here: the deliveries reuse one read of it for a few seconds, and the
   * next event must go to the new URL (other servers on the same database read it within those seconds).
   */
  webhookChanged?: () => void;
}

const UUID = v.pipe(v.string(), v.uuid('must be a UUID'));

/** ADMIN_PATHS relative to where this route is mounted (ADMIN_BASE, in server/app.ts). */
const at = Object.fromEntries(
  Object.entries(ADMIN_PATHS).map(([name, path]) => [name, pathUnder(ADMIN_BASE, path)]),
) as Record<keyof typeof ADMIN_PATHS, string>;

export function adminRoute(options: AdminRouteOptions) {
  const { store, auth } = options;
  const defaults: SettingsDefaults = options.settings ?? {
    answerMode: DEFAULT_ANSWER_MODE,
    retrieval: { evidenceThreshold: DEFAULT_EVIDENCE_THRESHOLD },
  };
  const app = new Hono<{ Variables: AuthVariables }>();
  // Sign-in comes before the token check: it is how a token is obtained.
  app.route('/', sessionRoute(options.signIn ?? {}));

  app.use('*', requireAuth(auth));
  // The claim is checked here for a fast, cheap 403 (no database work for a visitor), and again in SQL.
  app.use('*', async function adminsOnlyMiddleware(c, next) {
    if (!isAdmin(c.get('claims'))) throw new AppError(403, 'forbidden', 'Only administrators can use the console.');
    await next();
  });
  app.use('*', rateLimit({ store, bucket: 'admin', ...(options.rateLimit ?? { limit: 300, windowSeconds: 60 }) }));

  /** A store refusal for want of the admin role is a 403 here, not the 404 the visitor routes answer. */
  const adminsOnly = (what: string) => (error: unknown) => {
    if (error instanceof StoreError && error.kind === 'forbidden')
      throw new AppError(403, 'forbidden', `Only administrators can ${what}.`);
    throw fromStoreError(error);
  };
  const query = <S extends v.GenericSchema>(schema: S, c: { req: { query(): Record<string, string> } }) =>
    parseBody(schema, c.req.query());
  const id = (raw: string) => parseBody(v.object({ id: UUID }), { id: raw }).id;

  app.get(at.me, async function me(c) {
    const { user_id } = await store.adminWhoami(c.get('claims')).catch(adminsOnly('use the console'));
    return c.json<AdminMe>({
      user_id,
      role: 'admin',
      capabilities: {
        upload: !!options.uploader,
        server_embedding: !!options.embedQuestion,
        link_sign_in: !!options.signIn?.link,
        password_sign_in: !!options.signIn?.password,
        webhook_setting: options.webhookSetting ?? false,
      },
    });
  });

  app.get(at.gaps, async function contentGaps(c) {
    // The first API (before the console) answered `?limit=` with `{gaps}`; it still does, with `status` etc.
    if (c.req.query('status') === undefined && c.req.query('offset') === undefined) {
      const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 100) || 100, 1), 1000);
      const gaps = await store.listContentGaps(c.get('claims'), limit).catch(adminsOnly('see content gaps'));
      return c.json<{ gaps: ContentGap[] }>({ gaps });
    }
    const q = query(GapsQuerySchema, c);
    return c.json(await store.adminListGaps(c.get('claims'), q).catch(adminsOnly('see content gaps')));
  });

  app.put(at.gaps, async function markGap(c) {
    const update = parseBody(GapUpdateSchema, await readJson(c.req.raw));
    const found = await store
      .adminSetGapDone(c.get('claims'), update.question_key, update.done)
      .catch(adminsOnly('change content gaps'));
    if (!found) throw new AppError(404, 'not_found', 'question_key: no such content gap.');
    return c.json({ question_key: update.question_key, done: update.done });
  });

  app.get(at.conversations, async function conversations(c) {
    const q = query(ConversationsQuerySchema, c);
    return c.json(await store.adminListConversations(c.get('claims'), q).catch(adminsOnly('read conversations')));
  });

  app.get(`${at.conversations}/:session_id`, async function thread(c) {
    const sessionId = parseBody(v.object({ session_id: UUID }), { session_id: c.req.param('session_id') }).session_id;
    const found = await store.adminGetThread(c.get('claims'), sessionId).catch(adminsOnly('read conversations'));
    if (!found) throw new AppError(404, 'not_found', 'session_id: no such conversation.');
    return c.json<AdminThread>(found);
  });

  app.get(at.documents, async function documents(c) {
    const q = query(DocumentsQuerySchema, c);
    return c.json(await store.adminListDocuments(c.get('claims'), q).catch(adminsOnly('list documents')));
  });

  app.put(`${at.documents}/:id`, async function enableDocument(c) {
    const documentId = id(c.req.param('id'));
    const { enabled } = parseBody(DocumentUpdateSchema, await readJson(c.req.raw));
    const found = await store
      .adminSetDocumentEnabled(c.get('claims'), documentId, enabled)
      .catch(adminsOnly('change documents'));
    if (!found) throw new AppError(404, 'not_found', 'id: no such document.');
    return c.json({ id: documentId, enabled });
  });

  app.delete(`${at.documents}/:id`, async function deleteDocument(c) {
    const documentId = id(c.req.param('id'));
    const found = await store.adminDeleteDocument(c.get('claims'), documentId).catch(adminsOnly('delete documents'));
    if (!found) throw new AppError(404, 'not_found', 'id: no such document.');
    return c.json({ id: documentId, deleted: true });
  });

  app.route(at.documents, uploadRoute({ store, uploader: options.uploader }));

  app.get(at.overview, async function overview(c) {
    const q = query(OverviewQuerySchema, c);
    const to = q.to ?? new Date().toISOString();
    const from = q.from ?? new Date(Date.parse(to) - 30 * 86_400_000).toISOString();
    const span = Date.parse(to) - Date.parse(from);
    if (!(span > 0)) throw new AppError(400, 'invalid_request', 'from: must be before to.');
    if (span > 366 * 86_400_000)
      throw new AppError(400, 'invalid_request', 'from: must be at most 366 days before to.');
    return c.json(await store.adminOverview(c.get('claims'), from, to).catch(adminsOnly('see the overview')));
  });

  app.post(at.try, async function tryIt(c) {
    const request = parseBody(TryRequestSchema, await readJson(c.req.raw));
    // The same SQL check as every other admin call, before any search runs as this user.
    await store.adminWhoami(c.get('claims')).catch(adminsOnly('try questions'));
    // The settings in effect, read as the chat reads them (the server's defaults if they cannot be read).
    const { retrieval, refusalSuggestions, supportUrl } = await settingsReader(store, defaults)();
    return c.json(
      await tryQuestion(
        store,
        c.get('claims'),
        request,
        retrieval,
        options.embedQuestion,
        refusalSuggestions,
        supportUrl,
      ),
    );
  });

  app.route(
    at.export,
    exportRoute({ store, onStoreError: adminsOnly('export data'), pageRows: options.exportPageRows }),
  );

  // The webhook's URL and whether a secret is set come from admin_get_webhook (admins only); the secret
  // itself is in no response: kb_get_settings / kb_set_settings do not return it.
  const webhookState = async (claims: JwtClaims) => ({
    ...(await store.adminGetWebhook(claims).catch(adminsOnly('see the settings'))),
    editable: options.webhookSetting ?? false,
    deliveries: options.webhookStats?.() ?? null,
  });

  app.route(at.assistants, assistantsRoute(store));
  app.get(at.settings, async function readSettings(c) {
    const stored = await store.getSettings().catch(adminsOnly('see the settings'));
    return c.json<Settings>(adminSettings(stored, defaults, await webhookState(c.get('claims'))));
  });

  app.put(at.settings, async function changeSettings(c) {
    const update = parseBody(SettingsUpdateSchema, await readJson(c.req.raw));
    // A webhook stored where this server never reads it back (a Worker) would look set and do nothing.
    const webhookField = (['webhook_url', 'webhook_secret'] as const).find((key) => key in update);
    if (webhookField && !options.webhookSetting) {
      throw new AppError(
        400,
        'invalid_request',
        `${webhookField}: this server reads the webhook only from KB_WEBHOOK_URL and KB_WEBHOOK_SECRET.`,
      );
    }
    let generated: string | undefined;
    if (webhookField) {
      // Where events go, and what proves they are ours: a stolen session must not redirect them quietly.
      requireFreshSignIn(c.get('claims'), 'change the webhook');
      const pair = webhookPair(update);
      Object.assign(update, pair.patch);
      generated = pair.generated;
    }
    const stored = await store.setSettings(c.get('claims'), update).catch(adminsOnly('change the settings'));
    if (webhookField) options.webhookChanged?.();
    const settings = adminSettings(stored, defaults, await webhookState(c.get('claims')));
    return c.json<Settings>(generated ? { ...settings, webhook_secret_generated: generated } : settings);
  });

  return app;
}

export function isAdmin(claims: Record<string, unknown>): boolean {
  return (claims.app_metadata as { role?: unknown } | undefined)?.role === 'admin';
}
