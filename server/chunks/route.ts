/**
 * `GET /api/chunks/:id`: the full text of a cited passage, for the widget's "expand this source".
 * Only chunks of ready, enabled documents exist here (the SQL function decides).
 */
import { Hono } from 'hono';
import * as v from 'valibot';
import type { Chunk } from '../../protocol/index.ts';
import { requireAuth, type AuthVariables, type TokenVerification } from '../auth/jwt.ts';
import { AppError, fromStoreError } from '../http/errors.ts';
import type { ChatStore } from '../store/types.ts';

const Uuid = v.pipe(v.string(), v.uuid());

export function chunksRoute({ store, auth }: { store: ChatStore; auth: TokenVerification }) {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.get('/:id', requireAuth(auth), async function getChunk(c) {
    const id = c.req.param('id');
    if (!v.is(Uuid, id)) throw new AppError(400, 'invalid_request', 'id: must be a UUID');
    const chunk = await store.getChunk(c.get('claims'), id).catch((error) => {
      throw fromStoreError(error);
    });
    if (!chunk) throw new AppError(404, 'not_found', 'No such passage.');
    return c.json<Chunk>({
      chunk_id: chunk.chunk_id,
      content: chunk.content,
      title: chunk.document_title,
      section: chunk.meta.section ?? null,
      page: typeof chunk.meta.page === 'number' ? chunk.meta.page : null,
      url: chunk.meta.url ?? chunk.document_url ?? null,
    });
  });
  return app;
}
