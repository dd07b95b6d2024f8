/**
 * The admin API. Admins only — a JWT whose `app_metadata.role` is `admin`; each SQL function checks the
 * claim itself, so the rule holds whichever API calls it.
 * - `GET /api/admin/gaps`: the questions kb-chat refused, most asked first, so site owners see what their
 *   documents lack.
 * - `GET/PUT /api/admin/settings`: what an admin changes at runtime (the answer mode), stored in the
 *   database so every server and Worker isolate reads the same.
 */
import { Hono } from 'hono';
import { SettingsUpdateSchema, type Settings } from '../../protocol/index.ts';
import { requireAuth, type AuthVariables, type TokenVerification } from '../auth/jwt.ts';
import { parseBody, readJson } from '../chat/request.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import { StoreError, type AnswerMode, type ChatStore, type ContentGap, type StoredSettings } from '../store/types.ts';

export function adminRoute({ store, auth, serverAnswerMode = 'extractive' }: { store: ChatStore; auth: TokenVerification; serverAnswerMode?: AnswerMode }) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.use('*', requireAuth(auth));

  /** A store refusal for want of the admin role is a 403 here, not the 404 the visitor routes answer. */
  const adminsOnly = (what: string) => (error: unknown) => {
    if (error instanceof StoreError && error.kind === 'forbidden') throw new AppError(403, 'forbidden', `Only administrators can ${what}.`);
    throw fromStoreError(error);
  };
  const settings = (stored: StoredSettings): Settings => ({
    answer_mode: stored.answer_mode ?? serverAnswerMode,
    answer_mode_source: stored.answer_mode ? 'admin' : 'server',
    server_answer_mode: serverAnswerMode,
    updated_at: stored.updated_at,
  });

  app.get('/gaps', async function contentGaps(c) {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 100) || 100, 1), 1000);
    const gaps = await store.listContentGaps(c.get('claims'), limit).catch(adminsOnly('see content gaps'));
    return c.json<{ gaps: ContentGap[] }>({ gaps });
  });

  app.get('/settings', async function readSettings(c) {
    // The mode itself is public (/api/config carries it); this view, with where it comes from, is the
    // console's: admins only, on the verified claims.
    if ((c.get('claims').app_metadata as { role?: unknown } | undefined)?.role !== 'admin') throw new AppError(403, 'forbidden', 'Only administrators can see the settings.');
    return c.json<Settings>(settings(await store.getSettings().catch(adminsOnly('see the settings'))));
  });

  app.put('/settings', async function changeSettings(c) {
    const update = parseBody(SettingsUpdateSchema, await readJson(c.req.raw));
    const stored = await store.setSettings(c.get('claims'), { answer_mode: update.answer_mode }).catch(adminsOnly('change the settings'));
    return c.json<Settings>(settings(stored));
  });

  return app;
}
