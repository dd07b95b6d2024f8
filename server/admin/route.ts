/**
 * `GET /api/admin/gaps`: the questions kb-chat refused, most asked first, so site owners see what their
 * documents lack. Admins only — a JWT whose `app_metadata.role` is `admin`; the SQL function checks the
 * claim itself, so the rule holds whichever API calls it.
 */
import { Hono } from 'hono';
import { requireAuth, type AuthVariables, type TokenVerification } from '../auth/jwt.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import { StoreError, type ChatStore, type ContentGap } from '../store/types.ts';

export function adminRoute({ store, auth }: { store: ChatStore; auth: TokenVerification }) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.use('*', requireAuth(auth));

  app.get('/gaps', async function contentGaps(c) {
    const limit = Math.min(Math.max(Number(c.req.query('limit') ?? 100) || 100, 1), 1000);
    const gaps = await store.listContentGaps(c.get('claims'), limit).catch((error) => {
      if (error instanceof StoreError && error.kind === 'forbidden') {
        throw new AppError(403, 'forbidden', 'Only administrators can see content gaps.');
      }
      throw fromStoreError(error);
    });
    return c.json<{ gaps: ContentGap[] }>({ gaps });
  });

  return app;
}
