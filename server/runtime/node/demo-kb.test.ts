import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, EmbedderLoadError, type Embedder } from '../../ingest/embedder.ts';
import { MODEL, MODEL_DIR } from '../../ingest/fixtures/paths.ts';
import { openPgliteStore, type PgliteStore } from '../../store/pglite.ts';
import { DEMO_PAGES } from '../../testing/demo-pages.ts';
import { migratedTemplate } from '../../testing/pglite-template.ts';
import { ensureDemo } from './demo-kb.ts';
import { DEMO_KB_DIR } from './paths.ts';

let store: PgliteStore;
let embedder: Embedder;
const lines: string[] = [];
const log = (line: string) => lines.push(line);

beforeAll(async () => {
  [store, embedder] = await Promise.all([
    openPgliteStore(null, { loadDataDir: await migratedTemplate() }),
    createEmbedder({ model: MODEL, modelDir: MODEL_DIR }),
  ]);
});
afterAll(async () => {
  await Promise.all([store?.close(), embedder?.dispose()]);
});

// The model that cannot be loaded is the real failure of a first start without network: EmbedderLoadError.
const unreachable = async (): Promise<Embedder> => {
  throw new EmbedderLoadError('Could not load the embedding model "Xenova/all-MiniLM-L6-v2": fetch failed');
};
const demo = (load: () => Promise<Embedder>) =>
  ensureDemo({ store, embedder: load, model: MODEL, dir: DEMO_KB_DIR, log, warn: log });

describe('ensureDemo', () => {
  it('stores the demo for keyword search when the model cannot be loaded, and embeds it once it can', async () => {
    expect(await demo(unreachable)).toBe('words-only');
    expect(lines.join('\n')).toContain('questions are answered\n   by their words');
    let stats = await store.kbStats();
    expect([stats.documents, stats.embeddings]).toEqual([DEMO_PAGES, 0]);

    expect(await demo(unreachable)).toBe('words-only');
    expect(lines.at(-1)).toContain('still cannot be loaded');

    // A demo page the owner deleted meanwhile stays deleted.
    const [removed] = await store.listDocuments();
    await store.deleteDocument(removed!.id);

    expect(await demo(async () => embedder)).toBe('embedded');
    stats = await store.kbStats();
    expect(stats.documents).toBe(DEMO_PAGES - 1);
    expect(stats.embeddings).toBe(stats.chunks);
    expect(await demo(unreachable)).toBe('present');
  });

  it('says so and returns when the demo cannot be stored even without the model (the server starts anyway)', async () => {
    // The real PGlite store with its write failing (a fault injected at that one method), and no model: the
    // ingestion without embeddings fails too, which must not stop the start.
    const empty = await openPgliteStore(null, { loadDataDir: await migratedTemplate() });
    const failing = Object.create(empty, {
      ingestDocument: { value: async () => Promise.reject(new Error('no space left on device')) },
    }) as typeof empty;
    try {
      const said: string[] = [];
      const outcome = await ensureDemo({
        store: failing,
        embedder: unreachable,
        model: MODEL,
        dir: DEMO_KB_DIR,
        log,
        warn: (l) => said.push(l),
      });
      expect(outcome).toBe('failed');
      expect(said.join('\n')).toMatch(/could not be ingested\. demo\/kb\/configuration\.md: no space left on device/);
      expect((await empty.kbStats()).documents).toBe(0);
    } finally {
      await empty.close();
    }
  });
});
