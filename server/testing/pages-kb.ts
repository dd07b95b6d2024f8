/**
 * A small knowledge base of Markdown pages written by a test: the pages go to a temporary folder, are ingested
 * with the test-double embedder through the real pipeline, and are served by a test API on PGlite. For tests
 * that ask POST /api/chat about a handful of pages whose words they choose.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { followUpText, type RetrievalMode } from '../../protocol/index.ts';
import { createEmbedder, type Embedder } from '../ingest/embedder.ts';
import { ingest } from '../ingest/pipeline.ts';
import { createTestApi, type TestApi } from './api.ts';

/** A page with a front-matter title and a top heading repeating it, as docs generators write them. */
export function page(title: string, body: string): string {
  return `---\ntitle: ${title}\n---\n\n# ${title}\n\n${body}\n`;
}

/** A chat reply as the JSON route returns it (answer or refusal), the fields these tests read. */
export interface ChatReply {
  type: string;
  text?: string;
  citations?: { section: string | null }[];
}

export interface PagesKb {
  api: TestApi;
  embedder: Embedder;
  /**
   * One turn of a conversation in `mode`, as the widget asks it: the browser embeds the follow-up's text with
   * the earlier question's topic words (`followUpText`; keyword mode sends no embedding).
   */
  ask(
    mode: RetrievalMode,
    token: string,
    message: string,
    session_id: string,
    earlier: string | null,
  ): Promise<ChatReply>;
  close(): Promise<void>;
}

/** Writes `pages` (file name → Markdown), ingests them, and returns the API that answers from them. */
export async function pagesKb(pages: Record<string, string>): Promise<PagesKb> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kb-pages-'));
  for (const [name, text] of Object.entries(pages)) await writeFile(path.join(dir, name), text);
  const api = await createTestApi({ rateLimit: { limit: 1000, windowSeconds: 3600 } });
  const embedder = await createEmbedder({
    model: 'test-double/bert-384',
    modelDir: path.resolve('test/fixtures/models'),
  });
  await ingest({ store: api.store, embedder, model: embedder.model, inputs: [dir], cwd: dir });
  return {
    api,
    embedder,
    async ask(mode, token, message, session_id, earlier) {
      const text = followUpText(message, earlier ? { question: earlier } : null);
      const embedding = mode === 'lexical' ? undefined : (await embedder.embed([text]))[0];
      const res = await api.chat(
        token,
        { message, message_id: crypto.randomUUID(), session_id, ...(embedding ? { embedding } : {}) },
        { headers: { Accept: 'application/json' } },
        api.instance({ retrieval: { mode } }),
      );
      return (await res.json()) as ChatReply;
    },
    async close() {
      await embedder.dispose();
      await api.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
