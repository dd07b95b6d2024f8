/**
 * Documents written to attack the server, through the whole pipeline (files → parse → store), in this
 * thread and in the worker pool: each fails alone with a clear reason, nothing of it runs or is stored,
 * and the other documents of the run are stored.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgliteStore, type PgliteStore } from '../store/pglite.ts';
import { migratedTemplate } from '../testing/pglite-template.ts';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { codeFrontMatter } from '../testing/front-matter-attack.ts';
import { bombPdf } from '../testing/pdf-bomb.ts';
import { createEmbedder, type Embedder } from './embedder.ts';
import { MODEL, MODEL_DIR } from './fixtures/paths.ts';
import { ingest } from './pipeline.ts';
import { PDF_LIMITS } from './pdf-reader.ts';
import { createWorkerPool, type Preparer } from './pool.ts';

let store: PgliteStore;
let embedder: Embedder;
let dir: string;

beforeAll(async () => {
  [store, embedder] = await Promise.all([
    openPgliteStore(null, { loadDataDir: await migratedTemplate() }),
    createEmbedder({ model: MODEL, modelDir: MODEL_DIR }),
  ]);
  dir = await mkdtemp(path.join(tmpdir(), 'kb-hostile-'));
});
afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A folder with a `---js` file, a `---javascript` file and a normal page; returns the markers' paths. */
async function frontMatterFolder(name: string): Promise<string[]> {
  const folder = path.join(dir, name);
  await mkdir(folder);
  const markers = ['js', 'javascript'].map((language) => path.join(dir, `${name}-${language}.ran`));
  await writeFile(path.join(folder, 'a-js.md'), codeFrontMatter('js', markers[0]!));
  await writeFile(path.join(folder, 'b-javascript.md'), codeFrontMatter('javascript', markers[1]!));
  await writeFile(
    path.join(folder, 'c-good.md'),
    '---\ntitle: Shipping\n---\nWe ship to every planet of the solar system.\n',
  );
  return markers;
}

async function expectFrontMatterRefused(name: string, summary: Awaited<ReturnType<typeof ingest>>, markers: string[]) {
  for (const marker of markers) expect(existsSync(marker), marker).toBe(false);
  expect(summary.failed).toEqual([
    { source: `${name}/a-js.md`, error: "front matter in 'js' is refused: only YAML front matter is read" },
    {
      source: `${name}/b-javascript.md`,
      error: "front matter in 'javascript' is refused: only YAML front matter is read",
    },
  ]);
  expect(summary.added).toBe(1);
  expect(await store.documentState(`${name}/c-good.md`, MODEL)).toMatchObject({ status: 'ready' });
  for (const file of ['a-js.md', 'b-javascript.md'])
    expect(await store.documentState(`${name}/${file}`, MODEL)).toBeNull();
}

/** A folder with a decompression-bomb PDF and a normal one. */
async function pdfFolder(name: string): Promise<void> {
  const folder = path.join(dir, name);
  await mkdir(folder);
  await writeFile(path.join(folder, 'bomb.pdf'), bombPdf());
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage().drawText('Every kb-chat lamp carries a warranty of five years.', { x: 50, y: 700, size: 12, font });
  await writeFile(path.join(folder, 'warranty.pdf'), await pdf.save());
}

async function expectBombRefused(name: string, summary: Awaited<ReturnType<typeof ingest>>) {
  expect(summary.failed).toEqual([
    {
      source: `${name}/bomb.pdf`,
      error: `PDF refused: it decompresses to more than ${PDF_LIMITS.maxInflatedBytes / 1024 / 1024} MB of content (a decompression bomb?)`,
    },
  ]);
  expect(summary.added).toBe(1);
  expect(await store.documentState(`${name}/warranty.pdf`, MODEL)).toMatchObject({ status: 'ready' });
  expect(await store.documentState(`${name}/bomb.pdf`, MODEL)).toBeNull();
}

describe('a decompression-bomb PDF (330 KB → 320 MB)', () => {
  it('fails alone in this thread; the normal PDF of the run is stored', async () => {
    await pdfFolder('pdf-main');
    await expectBombRefused(
      'pdf-main',
      await ingest({ store, embedder, model: MODEL, inputs: ['pdf-main'], cwd: dir }),
    );
  });

  it('fails alone in the worker pool (the reader is a worker of the pool worker)', { timeout: 120_000 }, async () => {
    await pdfFolder('pdf-pool');
    let pool: Preparer | null = null;
    try {
      pool = await createWorkerPool({ model: MODEL, modelDir: MODEL_DIR, size: 1 });
      await expectBombRefused(
        'pdf-pool',
        await ingest({ store, preparer: pool, model: MODEL, inputs: ['pdf-pool'], cwd: dir }),
      );
    } finally {
      await pool?.close();
    }
  });
});

describe('front matter that is code', () => {
  it('is refused in this thread (`--workers 0`, the console): the document fails alone', async () => {
    const markers = await frontMatterFolder('main');
    const summary = await ingest({ store, embedder, model: MODEL, inputs: ['main'], cwd: dir });
    await expectFrontMatterRefused('main', summary, markers);
  });

  it('is refused in the worker pool (the CLI by default)', { timeout: 120_000 }, async () => {
    const markers = await frontMatterFolder('pool');
    let pool: Preparer | null = null;
    try {
      pool = await createWorkerPool({ model: MODEL, modelDir: MODEL_DIR, size: 1 });
      const summary = await ingest({ store, preparer: pool, model: MODEL, inputs: ['pool'], cwd: dir });
      await expectFrontMatterRefused('pool', summary, markers);
    } finally {
      await pool?.close();
    }
  });
});
