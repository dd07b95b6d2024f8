/**
 * `GET|PUT /api/admin/assistants`: the console's switch for what coding assistants read — the MCP server
 * (/mcp) and /llms.txt with /llms-full.txt (docs/mcp.md). Its own route and SQL function rather than a key of
 * `/settings`, so the settings' patch and its validation stay as they are. Mounted behind the console's
 * sign-in, admin check and rate limit (./route.ts); the database checks the admin again.
 */
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AuthVariables } from '../auth/jwt.ts';
import { parseBody, readJson } from '../http/body.ts';
import { fromStoreError } from '../http/errors.ts';
import type { ChatStore } from '../store/types.ts';

const AssistantsPatch = v.object({ enabled: v.nullable(v.boolean('must be true, false or null')) });

export function assistantsRoute(store: ChatStore) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const rethrow = (error: unknown): never => {
    throw fromStoreError(error);
  };
  app.get('/', async function assistants(c) {
    const { enabled } = await store.assistantsState().catch(rethrow);
    return c.json({ enabled });
  });
  app.put('/', async function setAssistants(c) {
    const { enabled } = parseBody(AssistantsPatch, await readJson(c.req.raw));
    return c.json({ enabled: await store.setAssistants(c.get('claims'), enabled).catch(rethrow) });
  });
  return app;
}
