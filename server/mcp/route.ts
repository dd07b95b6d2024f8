/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP, stateless — every POST is answered on its own
 * (JSON responses, no session id, no server-sent stream), so it runs unchanged on Node and in a Worker
 * isolate that keeps nothing between requests. The official SDK's low-level `Server` and its Web-standard
 * transport speak the protocol (version negotiation, JSON-RPC, errors); ./tools.ts does the work.
 *
 * No sign-in: the client's network is its identity (./visitors.ts). Bounded like the API: a 64 KB body,
 * 2000-character questions, the per-user rate limit of the widget's questions, sign-ups per client network.
 * The console's switch (kb_assistants_state) turns it off: then every request gets 404.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AnonymousAuth } from '../../protocol/index.ts';
import type { TokenVerification } from '../auth/jwt.ts';
import type { AnswerTurnOptions } from '../chat/answer.ts';
import { clientKey } from '../http/client-key.ts';
import type { ClientAddress, ClientLimiter } from '../http/client-limit.ts';
import { errorBody, fromStoreError } from '../http/errors.ts';
import type { RetrievalOptions } from '../retrieval/index.ts';
import type { ChatStore, JwtClaims } from '../store/types.ts';
import type { Webhooks } from '../webhooks/dispatcher.ts';
import { waitUntilOf } from '../webhooks/wait-until.ts';
import { callTool, ToolError, TOOLS } from './tools.ts';
import { McpVisitors } from './visitors.ts';

export const MCP_PATH = '/mcp';
export const MCP_MAX_BODY_BYTES = 64 * 1024;

export interface McpRouteOptions {
  store: ChatStore;
  auth: TokenVerification;
  /** The anonymous sign-in the widget's visitors get; without one, the tools answer that MCP is unavailable. */
  signIn?: () => Promise<AnonymousAuth>;
  signupLimiter?: ClientLimiter;
  clientIp?: ClientAddress;
  rateLimit: { limit: number; windowSeconds: number };
  retrieval: RetrievalOptions;
  settings?: AnswerTurnOptions['settings'];
  webhooks?: Webhooks;
}

const INSTRUCTIONS =
  'Answers come only from this documentation, quoted verbatim with numbered sources. When ask_docs refuses, the documentation does not cover the question: say so rather than answering from elsewhere.';

export function mcpRoute(options: McpRouteOptions) {
  const { store, signIn } = options;
  const visitors = signIn ? new McpVisitors(signIn, options.auth, options.signupLimiter) : null;
  const app = new Hono();

  app.use('*', async function assistantsSwitch(c, next) {
    const state = await store.assistantsState().catch((error) => {
      throw fromStoreError(error);
    });
    if (!state.enabled) return c.json(errorBody('not_found', 'The MCP server is turned off on this site.'), 404);
    c.header('Cache-Control', 'no-store');
    await next();
  });

  app.post(
    '/',
    bodyLimit({
      maxSize: MCP_MAX_BODY_BYTES,
      onError: (c) => c.json(errorBody('payload_too_large', `The request body is larger than 64 KB.`), 413),
    }),
    async function mcp(c) {
      const server = buildServer(options, visitors, c);
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(c.req.raw);
      } finally {
        await server.close();
      }
    },
  );
  // Stateless: no stream to open (GET) and no session to end (DELETE), as the transport specifies.
  app.on(['GET', 'DELETE'], '/', (c) =>
    c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }, 405, {
      Allow: 'POST',
    }),
  );
  return app;
}

function buildServer(options: McpRouteOptions, visitors: McpVisitors | null, c: Context): Server {
  const server = new Server(
    { name: 'kb-chat', title: 'Documentation (kb-chat)', version: '1.0.0' },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const client = clientKey(options.clientIp?.(c));
  const claims = async (): Promise<JwtClaims> => {
    if (!visitors) throw new ToolError('This server has no anonymous sign-in, so its tools are unavailable.');
    const found = await visitors.lookup(client);
    if ('retryAfter' in found)
      throw new ToolError(`Too many new clients from your network. Try again in ${found.retryAfter} seconds.`);
    const state = await options.store
      .rateLimitHit(found.claims, 'api', options.rateLimit.limit, options.rateLimit.windowSeconds)
      .catch((error) => {
        throw fromStoreError(error);
      });
    if (!state.allowed) {
      const retryAfter = Math.max(1, Math.ceil((state.reset_at.getTime() - Date.now()) / 1000));
      throw new ToolError(`Rate limited: too many questions from your network. Try again in ${retryAfter} seconds.`);
    }
    return found.claims;
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...TOOLS] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    callTool(request.params.name, request.params.arguments, {
      store: options.store,
      retrieval: options.retrieval,
      settings: options.settings,
      claims,
      origin: new URL(c.req.url).origin,
      webhooks: options.webhooks,
      waitUntil: waitUntilOf(c),
    }),
  );
  return server;
}
