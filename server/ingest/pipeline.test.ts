import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPgliteStore, type PgliteStore } from '../store/pglite.ts';
import { migratedTemplate } from '../testing/pglite-template.ts';
import { createEmbedder, EmbedderLoadError, type Embedder } from './embedder.ts';
import { fileURLToPath } from 'node:url';
import { FIXTURES_DIR, MODEL, MODEL_DIR } from './fixtures/paths.ts';
import { ingest, type IngestProgress } from './pipeline.ts';

let store: PgliteStore;
let embedder: Embedder;
let dir: string;

beforeAll(async () => {
  [store, embedder] = await Promise.all([
    openPgliteStore(null, { loadDataDir: await migratedTemplate() }),
    createEmbedder({ model: MODEL, modelDir: MODEL_DIR }),
  ]);
  dir = await mkdtemp(path.join(tmpdir(), 'kb-ingest-'));
  await mkdir(path.join(dir, 'docs/billing'), { recursive: true });
  await cp(path.join(FIXTURES_DIR, 'guide.mdx'), path.join(dir, 'docs/guide.mdx'));
  await cp(path.join(FIXTURES_DIR, 'notes.txt'), path.join(dir, 'docs/billing/notes.txt'));
  await writeFile(path.join(dir, 'docs/logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await writeFile(path.join(dir, 'docs/.hidden.md'), '# Hidden');
});

afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const run = (
  inputs: string[],
  load: () => Promise<Embedder> = async () => embedder,
  onProgress?: (e: IngestProgress) => void,
) =>
  ingest({
    store,
    embedder: load,
    model: MODEL,
    inputs,
    cwd: dir,
    baseUrl: 'https://docs.example.com/',
    ...(onProgress ? { onProgress } : {}),
  });

const chunkRows = async () =>
  (
    await store.db.query<{ id: string; source: string; content: string; meta: Record<string, unknown>; model: string }>(
      `select c.id, d.source, c.content, c.meta, e.model from kb_chunks c
       join kb_documents d on d.id = c.document_id left join kb_embeddings e on e.chunk_id = c.id
       order by d.source, c.position`,
    )
  ).rows;

async function ask(question: string) {
  const [vector] = await embedder.embed([question]);
  const sub = await store.createAnonymousUser();
  return store.matchChunks({ sub, role: 'authenticated' }, vector!, 0.2, 3);
}

describe('ingest', () => {
  it('adds every supported file of a folder, skipping dotfiles and reporting other extensions', async () => {
    const events: IngestProgress[] = [];
    const summary = await run(['docs'], undefined, (e) => events.push(e));
    expect(summary).toMatchObject({ added: 2, updated: 0, unchanged: 0, failed: [], skipped: ['docs/logo.png'] });
    expect(events.filter((e) => e.type === 'document').map((e) => e.type === 'document' && e.source)).toEqual([
      'docs/billing/notes.txt', // sorted: "billing" < "guide.mdx"
      'docs/guide.mdx',
    ]);

    const stats = await store.kbStats();
    expect(stats).toEqual({ documents: 2, ready_documents: 2, chunks: summary.chunks, embeddings: summary.chunks });
    const rows = await chunkRows();
    expect(rows.every((r) => r.model === MODEL)).toBe(true);
    const state = await store.documentState('docs/guide.mdx', MODEL);
    expect(state).toMatchObject({ status: 'ready', stale_embeddings: 0 });
    expect(state!.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('stores titles, urls and per-chunk citations', async () => {
    const { rows } = await store.db.query<{ source: string; name: string; meta: Record<string, unknown> }>(
      'select source, name, meta from kb_documents order by source',
    );
    expect(rows.map((r) => [r.source, r.name, r.meta.url])).toEqual([
      // No front matter: the base URL plus the path inside the given folder.
      ['docs/billing/notes.txt', 'notes', 'https://docs.example.com/billing/notes'],
      // Front matter url wins over the base URL.
      ['docs/guide.mdx', 'Widget guide', 'https://docs.example.com/guide'],
    ]);
    const keys = (await chunkRows()).find((r) => r.content.startsWith('Rotate the API key'));
    expect(keys?.meta).toEqual({
      section: 'Rotating API keys',
      heading_path: ['Rotating API keys'],
      anchor: 'rotating-api-keys',
      url: 'https://docs.example.com/guide#rotating-api-keys',
      page: null,
      char_start: expect.any(Number),
      char_end: expect.any(Number),
    });
    // The offsets span the chunk's text in the file (component tags included: they were stripped after).
    const source = await readFile(path.join(dir, 'docs/guide.mdx'), 'utf8');
    const span = source.slice(keys!.meta.char_start as number, keys!.meta.char_end as number);
    expect(span).toMatch(
      /^Rotate the API key every ninety days[\s\S]*<Collapse title="What happens to the old key\?">[\s\S]*one hour\.$/,
    );
  });

  it('finds the right chunk for a question embedded with the same model', async () => {
    const [best] = await ask('How often should I rotate the API key?');
    expect(best?.content).toContain('Rotate the API key every ninety days');
    expect(best?.document_title).toBe('Widget guide');
    expect(best?.document_url).toBe('https://docs.example.com/guide');
    const [refund] = await ask('How long do refunds take to be processed?');
    expect(refund?.content).toContain('Refunds are processed within ten business days.');
  });

  it('skips unchanged files without loading the model or rewriting anything', async () => {
    const before = await chunkRows();
    const load = vi.fn(async () => embedder);
    const summary = await run(['docs'], load);
    expect(summary).toMatchObject({ added: 0, updated: 0, unchanged: 2, failed: [], chunks: 0 });
    expect(load).not.toHaveBeenCalled();
    expect(await chunkRows()).toEqual(before);
  });

  it('updates a changed file and leaves the others alone', async () => {
    const before = await chunkRows();
    await writeFile(
      path.join(dir, 'docs/billing/notes.txt'),
      'Invoices are now sent on the fifteenth day of every month.\n',
    );
    const summary = await run(['docs']);
    expect(summary).toMatchObject({ added: 0, updated: 1, unchanged: 1, failed: [], chunks: 1 });
    const after = await chunkRows();
    const guide = (rows: typeof before) => rows.filter((r) => r.source === 'docs/guide.mdx');
    expect(guide(after)).toEqual(guide(before));
    expect(after.filter((r) => r.source === 'docs/billing/notes.txt').map((r) => r.content)).toEqual([
      'Invoices are now sent on the fifteenth day of every month.',
    ]);
    expect(await ask('How long do refunds take to be processed?')).not.toContainEqual(
      expect.objectContaining({ content: expect.stringContaining('ten business days') }),
    );
  });

  it('re-embeds documents whose embeddings come from another model', async () => {
    const summary = await ingest({ store, embedder, model: 'other/model', inputs: ['docs/guide.mdx'], cwd: dir });
    expect(summary).toMatchObject({ updated: 1, unchanged: 0 });
    expect(await store.documentState('docs/guide.mdx', MODEL)).toMatchObject({ stale_embeddings: expect.any(Number) });
    expect((await store.documentState('docs/guide.mdx', MODEL))!.stale_embeddings).toBeGreaterThan(0);
    expect(await run(['docs/guide.mdx'])).toMatchObject({ updated: 1 });
    expect((await store.documentState('docs/guide.mdx', MODEL))!.stale_embeddings).toBe(0);
  });

  it('fails a bad file alone, with a clear error, and goes on with the rest', async () => {
    await writeFile(path.join(dir, 'docs/broken.md'), Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x00, 0x41]));
    await writeFile(path.join(dir, 'docs/zz-new.md'), '# New page\n\nBrand new content about webhooks.');
    const summary = await run(['docs', 'missing.md', 'docs/logo.png']);
    expect(summary.failed).toEqual([
      { source: 'missing.md', error: 'no such file or directory' },
      {
        source: 'docs/logo.png',
        error: 'unsupported file type .png; supported: .md, .markdown, .mdx, .html, .htm, .pdf, .txt',
      },
      { source: 'docs/broken.md', error: expect.stringContaining('not valid UTF-8') },
    ]);
    expect(summary).toMatchObject({ added: 1, unchanged: 2 });
    expect(await store.documentState('docs/broken.md', MODEL)).toBeNull();
    expect(await store.documentState('docs/zz-new.md', MODEL)).toMatchObject({ status: 'ready' });
    await rm(path.join(dir, 'docs/broken.md'));
  });

  it('stores an emptied document without chunks, so its old text is no longer found', async () => {
    await writeFile(path.join(dir, 'docs/zz-new.md'), '<Banner>\n</Banner>\n');
    const summary = await run(['docs/zz-new.md']);
    expect(summary).toMatchObject({ updated: 1, chunks: 0, failed: [] });
    expect((await chunkRows()).filter((r) => r.source === 'docs/zz-new.md')).toEqual([]);
  });

  it('throws when the model cannot be loaded, saying what to set', async () => {
    await writeFile(path.join(dir, 'docs/zz-new.md'), '# Changed again\n\nSomething to embed.');
    const load = () => createEmbedder({ model: 'missing/model', modelDir: dir });
    const error = await run(['docs'], load).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbedderLoadError);
    expect((error as Error).message).toContain(`KB_MODEL_DIR=${dir}`);
    expect((error as Error).message).toContain('missing/model/onnx/model_quantized.onnx');
    expect((error as Error).message).toContain('KB_EMBED_MODEL=test-double/bert-384 KB_MODEL_DIR=test/fixtures/models');
  });
});

describe('the demo knowledge base (demo/kb)', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));

  it('ingests with front matter on every page and answers the questions it was written for', async () => {
    const summary = await ingest({ store, embedder, model: MODEL, inputs: ['demo/kb'], cwd: root });
    expect(summary.failed).toEqual([]);
    expect(summary.added).toBeGreaterThanOrEqual(5);
    const { rows } = await store.db.query<{ source: string; name: string; meta: Record<string, string | null> }>(
      "select source, name, meta from kb_documents where source like 'demo/kb/%' order by source",
    );
    for (const row of rows) {
      const file = path.basename(row.source, '.md');
      expect(row.meta.url).toBe(`/docs/${file}`);
      expect(row.meta.description).toBeTruthy();
      // The title is the front matter's, not the file name.
      const title = /^title: (.+)$/m.exec(await readFile(path.join(root, row.source), 'utf8'))?.[1];
      expect(row.name).toBe(title);
    }
    const expectations: [string, string][] = [
      ['How do I add the chat widget to my website?', '/docs/getting-started#adding-the-chat-widget-to-your-website'],
      ['Which browsers are supported?', '/docs/troubleshooting#which-browsers-are-supported'],
      [
        "What happens when the bot doesn't know the answer?",
        '/docs/how-it-works#what-happens-when-the-bot-doesnt-know-the-answer',
      ],
      ['What does CHAT_EVIDENCE_THRESHOLD do?', '/docs/configuration#evidence-threshold'],
      ['Are my questions sent to third parties?', '/docs/privacy-and-security#no-third-party-requests'],
    ];
    for (const [question, url] of expectations) {
      const [best] = await ask(question);
      expect({ question, url: best?.meta.url }).toEqual({ question, url });
      expect(best!.similarity).toBeGreaterThanOrEqual(0.35);
    }
  });
});
