import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteStore, type PgliteStore } from '../store/pglite.ts';
import { DEMO_PAGES } from '../testing/demo-pages.ts';
import { migratedTemplate } from '../testing/pglite-template.ts';
import { resolveInputs } from './files.ts';
import { createEmbedder, type Embedder } from './embedder.ts';
import { MODEL, MODEL_DIR, RAILWAY_DOCS } from './fixtures/paths.ts';
import { ingest } from './pipeline.ts';
import { estimateWordPieces } from './words-only.ts';

const DEMO_KB = path.resolve('demo/kb');
let embedder: Embedder;
let store: PgliteStore;

beforeAll(async () => {
  // The test double's tokenizer is the real MiniLM one (same vocabulary): the estimate is checked against it.
  [embedder, store] = await Promise.all([
    createEmbedder({ model: MODEL, modelDir: MODEL_DIR }),
    openPgliteStore(null, { loadDataDir: await migratedTemplate() }),
  ]);
});
afterAll(async () => {
  await Promise.all([embedder?.dispose(), store?.close()]);
});

describe('estimateWordPieces', () => {
  it('counts [CLS] and [SEP], one piece per short word and per punctuation mark', () => {
    expect(estimateWordPieces('')).toBe(2);
    expect(estimateWordPieces('How do I add it?')).toBe(2 + 5 + 1);
    expect(estimateWordPieces('文档')).toBe(4);
  });

  it('estimates at least the real tokenizer for most paragraphs of a real docs site, and never far below', async () => {
    const { files } = await resolveInputs([RAILWAY_DOCS]);
    const paragraphs: string[] = [];
    for (const file of files.slice(0, 60)) {
      const text = await readFile(file.file, 'utf8');
      paragraphs.push(...text.split(/\n\s*\n/).filter((p) => p.trim().length > 80));
    }
    expect(paragraphs.length).toBeGreaterThan(300);
    const ratios = paragraphs.map((p) => estimateWordPieces(p) / embedder.countTokens(p));
    const atLeast = ratios.filter((r) => r >= 1).length / ratios.length;
    expect(atLeast).toBeGreaterThan(0.8);
    expect(Math.min(...ratios)).toBeGreaterThan(0.6);
  });
});

describe('ingest({ wordsOnly: true })', () => {
  it('stores chunks without embeddings that keyword search finds, and a later run with the model embeds them', async () => {
    const first = await ingest({ store, model: MODEL, inputs: [DEMO_KB], wordsOnly: true });
    expect(first.failed).toEqual([]);
    expect(first.added).toBe(DEMO_PAGES);
    let stats = await store.kbStats();
    expect(stats.chunks).toBeGreaterThan(20);
    expect(stats.embeddings).toBe(0);

    const sub = await store.createAnonymousUser();
    const claims = { sub, role: 'authenticated' as const };
    const search = {
      embedding: null,
      text: 'change the evidence threshold',
      count: 3,
      mode: 'lexical' as const,
      filters: {},
    };
    const found = await store.searchChunks(claims, search);
    expect(found[0]?.content).toContain('CHAT_EVIDENCE_THRESHOLD');

    // Again without the model: nothing to do. With it: every document is chunked and embedded again.
    expect((await ingest({ store, model: MODEL, inputs: [DEMO_KB], wordsOnly: true })).unchanged).toBe(DEMO_PAGES);
    const second = await ingest({ store, model: MODEL, inputs: [DEMO_KB], embedder });
    expect(second.updated).toBe(DEMO_PAGES);
    stats = await store.kbStats();
    expect(stats.embeddings).toBe(stats.chunks);
  });
});
