/**
 * /mcp and /llms.txt on the production path: the Worker bundle in workerd, supabase-js to the
 * PostgREST-compatible server over PGlite, with Supabase Auth's anonymous sign-in as the MCP client's
 * identity. The demo knowledge base (demo/kb) is ingested with the test-double embedder; the official MCP
 * SDK's client talks to the Worker as an editor would, with no credentials.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder } from '../../server/ingest/embedder.ts';
import { ingest } from '../../server/ingest/pipeline.ts';
import { DEMO_PAGES } from '../../server/testing/demo-pages.ts';
import { startWorker, type WorkerHarness } from './harness.ts';

let harness: WorkerHarness;

beforeAll(async () => {
  harness = await startWorker({ KB_RATE_LIMIT: '3' });
  const embedder = await createEmbedder({
    model: 'test-double/bert-384',
    modelDir: path.resolve('test/fixtures/models'),
  });
  const kb = path.resolve('demo/kb');
  await ingest({ store: harness.pg, embedder, model: embedder.model, inputs: [kb], cwd: kb });
  await embedder.dispose();
}, 300_000);
afterAll(async () => {
  await harness?.close();
});

/** An MCP client whose requests reach the Worker from `ip`, as Cloudflare's edge reports it. */
async function connect(ip: string): Promise<Client> {
  const client = new Client({ name: 'kb-chat-workerd-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('http://kb-chat.test/mcp'), {
    fetch: (url, init) => {
      const headers = new Headers(init?.headers);
      headers.set('CF-Connecting-IP', ip);
      return harness.worker(new URL(url).pathname, { ...init, headers });
    },
  });
  await client.connect(transport);
  return client;
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

describe('MCP in workerd', () => {
  it('initializes, lists both tools, gives a cited passage, a cited answer and an off-topic refusal', async () => {
    const client = await connect('198.51.100.7');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask_docs', 'search_docs']);

    const search = textOf(await client.callTool({ name: 'search_docs', arguments: { query: 'evidence threshold' } }));
    expect(search).toContain('] Configuration › Evidence threshold\nURL: http://kb-chat.test/docs/configuration#');

    const answer = await client.callTool({
      name: 'ask_docs',
      arguments: { question: 'What is the evidence threshold?' },
    });
    expect(answer.isError).toBeFalsy();
    expect(textOf(answer)).toMatch(/Sources:\n\[1\] Configuration/);

    const refusal = textOf(
      await client.callTool({ name: 'ask_docs', arguments: { question: 'What is the best recipe for banana bread?' } }),
    );
    expect(refusal).toMatch(/^Not answered from the documentation \(reason: no_evidence\)/);
    expect(refusal).not.toMatch(/\[\d+\]/);

    // Stored through PostgREST with the Worker's answer write key, marked as an MCP question.
    const { rows } = await harness.pg.db.query<{ channel: string | null }>(
      `select a.meta ->> 'channel' as channel from chat_messages a join chat_messages u on u.id = a.reply_to
       where u.content in ('What is the evidence threshold?', 'What is the best recipe for banana bread?')`,
    );
    expect(rows.map((r) => r.channel)).toEqual(['mcp', 'mcp']);

    // The fourth call of this client network is over KB_RATE_LIMIT (3 a window): a tool error saying so.
    const limited = await client.callTool({ name: 'search_docs', arguments: { query: 'port' } });
    expect(limited.isError).toBe(true);
    expect(textOf(limited)).toMatch(/^Rate limited: /);
    await client.close();
  });

  it('an oversized question is a tool error', async () => {
    const client = await connect('198.51.100.8');
    const result = await client.callTool({ name: 'ask_docs', arguments: { question: 'x '.repeat(1500) } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('message: must be at most 2000 characters');
    await client.close();
  });
});

describe('llms.txt in workerd', () => {
  it('lists the pages, and answers 304 to its ETag', async () => {
    const res = await harness.worker('/llms.txt');
    expect(res.status).toBe(200);
    const body = await res.text();
    // One line per demo page.
    expect(body.match(/^- \[/gm)).toHaveLength(DEMO_PAGES);
    expect(body).toContain('- [Configuration](http://kb-chat.test/docs/configuration): ');
    const etag = res.headers.get('ETag')!;
    expect((await harness.worker('/llms.txt', { headers: { 'If-None-Match': etag } })).status).toBe(304);
    expect(await (await harness.worker('/llms-full.txt')).text()).toContain('## Troubleshooting');
  });
});
