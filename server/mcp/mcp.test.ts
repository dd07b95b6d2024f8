/**
 * /mcp and /llms.txt on the real Node server (startNodeServer, a port of its own) over the demo knowledge
 * base (demo/kb) ingested into PGlite with the test-double embedder, driven by the official MCP SDK's client
 * as an editor would: no credentials, only the URL.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminConversation } from '../../protocol/index.ts';
import type { WebhookEvent } from '../../protocol/webhooks.ts';
import { MemoryClientLimiter } from '../http/client-limit.ts';
import { nodeWebhooks } from '../runtime/node/webhooks.ts';
import { startReceiver, type Receiver } from '../testing/webhook-receiver.ts';
import { createEmbedder } from '../ingest/embedder.ts';
import { ingest } from '../ingest/pipeline.ts';
import { startNodeServer } from '../runtime/node/server.ts';
import { openPgliteStore, type PgliteStore } from '../store/pglite.ts';
import { DEMO_PAGES } from '../testing/demo-pages.ts';
import { migratedTemplate } from '../testing/pglite-template.ts';
import { signInAdmin, TEST_SECRET } from '../testing/api.ts';

const PORT = 18811;
let store: PgliteStore;
const servers: Awaited<ReturnType<typeof startNodeServer>>[] = [];
let url: string;
let receiver: Receiver;
const WEBHOOK_SECRET = 'mcp-test-webhook-secret-0123456789';

async function start(port: number, rateLimit = { limit: 100, windowSeconds: 3600 }) {
  const server = await startNodeServer({
    store,
    localAuth: store,
    jwtSecret: TEST_SECRET,
    evidenceThreshold: 0.35,
    embedModel: 'test-model',
    modelDir: path.resolve('test/fixtures/models'),
    port,
    rateLimit,
    signupLimiter: new MemoryClientLimiter(5, 60),
    clientIp: () => '127.0.0.1',
    webhooks: nodeWebhooks(store, { url: receiver.url, secret: WEBHOOK_SECRET, allowLoopback: true }),
  });
  servers.push(server);
  return server.url;
}

async function connect(base = url): Promise<Client> {
  const client = new Client({ name: 'kb-chat-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('mcp', base)));
  return client;
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

beforeAll(async () => {
  store = await openPgliteStore(null, { loadDataDir: await migratedTemplate() });
  const embedder = await createEmbedder({
    model: 'test-double/bert-384',
    modelDir: path.resolve('test/fixtures/models'),
  });
  const kb = path.resolve('demo/kb');
  await ingest({ store, embedder, model: embedder.model, inputs: [kb], cwd: kb });
  await embedder.dispose();
  receiver = await startReceiver();
  url = await start(PORT);
}, 180_000);
afterAll(async () => {
  for (const server of servers) await server.shutdown(1000);
  await store?.close();
  await receiver?.close();
});

describe('MCP on the Node server', () => {
  it('initializes without credentials and lists search_docs and ask_docs', async () => {
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe('kb-chat');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask_docs', 'search_docs']);
    await client.close();
  });

  it('search_docs returns quotable passages with title, section and a deep link', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'search_docs', arguments: { query: 'evidence threshold', top_k: 3 } });
    const text = textOf(result);
    expect(result.isError).toBeFalsy();
    expect(text).toMatch(/^3 passages from the documentation for "evidence threshold"/);
    expect(text).toContain(
      '] Configuration › Evidence threshold\nURL: http://127.0.0.1:18811/docs/configuration#evidence-threshold:~:text=',
    );
    // Quoted as written: the variable keeps its underscores.
    expect(text).toMatch(/^> `CHAT_EVIDENCE_THRESHOLD` sets the minimum similarity/m);
    expect(text).toContain('#evidence-threshold:~:text=CHAT_EVIDENCE_THRESHOLD%20sets%20the%20minimum');
    await client.close();
  });

  it('ask_docs answers with [n] citations and the sources, recorded as an MCP question', async () => {
    const client = await connect();
    const result = await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'What is the evidence threshold?' },
    });
    const text = textOf(result);
    expect(result.isError).toBeFalsy();
    expect(text).toMatch(/\[1\]/);
    expect(text).toMatch(/Sources:\n\[1\] Configuration/);
    const { rows } = await store.db.query<{ meta: { channel?: string; kind?: string } }>(
      `select a.meta from chat_messages a join chat_messages u on u.id = a.reply_to
       where u.content = 'What is the evidence threshold?'`,
    );
    expect(rows.map((r) => r.meta.channel)).toEqual(['mcp']);
    await client.close();

    // The console lists it as an MCP question; a widget question stays without a channel.
    const admin = await signInAdmin(store);
    const res = await fetch(new URL('api/admin/conversations?limit=50', url), {
      headers: { Authorization: `Bearer ${admin.token}` },
    });
    const page = (await res.json()) as { items: AdminConversation[] };
    const listed = page.items.filter((c) => c.question === 'What is the evidence threshold?');
    expect(listed.map((c) => c.channel)).toEqual(['mcp']);
  });

  it('ask_docs refuses an off-topic question with its reason and no citation', async () => {
    const client = await connect();
    const result = await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'What is the best recipe for banana bread?' },
    });
    const text = textOf(result);
    expect(text).toMatch(/^Not answered from the documentation \(reason: no_evidence\)/);
    expect(text).not.toMatch(/\[\d+\]/);
    expect(text).not.toContain('Sources:');
    await client.close();
    // Sent to the site's webhook like a widget visitor's refused question.
    const [delivery] = await receiver.received(1);
    const event = JSON.parse(delivery!.body) as WebhookEvent<'question.refused'>;
    expect(event).toMatchObject({
      type: 'question.refused',
      data: { question: 'What is the best recipe for banana bread?', reason: 'no_evidence' },
    });
  });

  it('an oversized question is a tool error that says the bound; an oversized body is 413', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'ask_docs', arguments: { question: 'x '.repeat(1500) } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('message: must be at most 2000 characters');
    const search = await client.callTool({ name: 'search_docs', arguments: { query: 'a', top_k: 500 } });
    expect(search.isError).toBe(true);
    await client.close();
    const res = await fetch(new URL('mcp', url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(70_000) } }),
    });
    expect(res.status).toBe(413);
  });

  it('limits each client network with the per-user rate limit of questions', async () => {
    const limited = await start(PORT + 1, { limit: 2, windowSeconds: 3600 });
    const client = await connect(limited);
    const ask = () => client.callTool({ name: 'search_docs', arguments: { query: 'port' } });
    expect((await ask()).isError).toBeFalsy();
    expect((await ask()).isError).toBeFalsy();
    const third = await ask();
    expect(third.isError).toBe(true);
    expect(textOf(third)).toMatch(/^Rate limited: .* Try again in \d+ seconds\.$/);
    await client.close();
  });
});

describe('llms.txt on the Node server', () => {
  it('lists every page with its URL and description, grouped by section, with an ETag that answers 304', async () => {
    const res = await fetch(new URL('llms.txt', url));
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toMatch(/^# 127\.0\.0\.1:18811 documentation\n/);
    expect(body).toContain('## docs');
    expect(body).toContain(
      "- [Configuration](http://127.0.0.1:18811/docs/configuration): The environment variables that configure kb-chat's",
    );
    // One line per demo page.
    expect(body.match(/^- \[/gm)).toHaveLength(DEMO_PAGES);
    const etag = res.headers.get('ETag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await fetch(new URL('llms.txt', url), { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });

  it('llms-full.txt has the pages text; the ETag changes when a document is disabled, and the switch turns both off', async () => {
    const full = await fetch(new URL('llms-full.txt', url));
    expect(await full.text()).toContain('## Configuration\nSource: http://127.0.0.1:18811/docs/configuration');
    const before = (await fetch(new URL('llms.txt', url))).headers.get('ETag');
    const { rows } = await store.db.query<{ id: string }>(`select id from kb_documents where name = 'Troubleshooting'`);
    await store.db.query(`update kb_documents set enabled = false where id = $1`, [rows[0]!.id]);
    const after = await fetch(new URL('llms.txt', url), { headers: { 'If-None-Match': before! } });
    expect(after.status).toBe(200);
    expect(await after.text()).not.toContain('Troubleshooting');
    await store.db.query(`update kb_documents set enabled = true where id = $1`, [rows[0]!.id]);

    // The database checks the admin itself: a visitor's claims cannot turn it off.
    const visitor = { sub: await store.createAnonymousUser(), role: 'authenticated' };
    await expect(store.setAssistants(visitor, false)).rejects.toMatchObject({ kind: 'forbidden' });
    const admin = await signInAdmin(store);
    const turn = async (enabled: unknown) => {
      const res = await fetch(new URL('api/admin/assistants', url), {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin.token}` },
        body: JSON.stringify({ enabled }),
      });
      return { status: res.status, body: await res.json() };
    };
    expect(await turn('off')).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
    expect(await turn(false)).toEqual({ status: 200, body: { enabled: false } });
    expect((await fetch(new URL('llms.txt', url))).status).toBe(404);
    const off = await fetch(new URL('mcp', url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(off.status).toBe(404);
    expect(await turn(null)).toEqual({ status: 200, body: { enabled: true } });
    expect((await fetch(new URL('llms.txt', url))).status).toBe(200);
  });
});
