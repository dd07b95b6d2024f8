/** Which question sets a site's evaluation runs (by file name) and the table it prints. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SiteRow, siteFiles, siteTable } from './sites.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kb-sites-'));
  const qa = JSON.stringify({ name: 'x', corpus: 'c', items: [] });
  const conversations = JSON.stringify({ name: 'x', corpus: 'c', conversations: [] });
  for (const name of ['vite-heldout.json', 'vite-docs.json', 'mkdocs-material-docs.json', 'mkdocs-heldout.json']) {
    await writeFile(path.join(dir, name), qa);
  }
  await writeFile(path.join(dir, 'vite-conversations.json'), conversations);
  await writeFile(path.join(dir, 'railway-docs.json'), qa);
  await writeFile(path.join(dir, 'notes.txt'), 'not a set');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('siteFiles', () => {
  it('finds a site by file-name prefix, tuning before held-out before conversations', async () => {
    expect((await siteFiles('vite', dir)).map((f) => [path.basename(f.file), f.set])).toEqual([
      ['vite-docs.json', 'tuning'],
      ['vite-heldout.json', 'held-out'],
      ['vite-conversations.json', 'tuning conversations'],
    ]);
    expect((await siteFiles('mkdocs-material', dir)).map((f) => path.basename(f.file))).toEqual([
      'mkdocs-material-docs.json',
      'mkdocs-heldout.json',
    ]);
  });

  it('lists every site for all, in site order, and rejects an unknown site', async () => {
    expect((await siteFiles('all', dir)).map((f) => f.site)).toEqual([
      'railway',
      'vite',
      'vite',
      'vite',
      'mkdocs-material',
      'mkdocs-material',
    ]);
    await expect(siteFiles('docusaurus', dir)).rejects.toThrow(/--site must be one of/);
  });

  it('runs the second held-out sets (2026-11-29) with their site, reported as held-out', async () => {
    const sets = async (site: string) => (await siteFiles(site)).map((f) => [path.basename(f.file), f.set]);
    const railway = await sets('railway');
    expect(railway).toContainEqual(['railway-heldout-2.json', 'held-out']);
    expect(railway).toContainEqual(['railway-conversations-heldout.json', 'held-out conversations']);
    expect(await sets('vite')).toContainEqual(['vite-heldout-2.json', 'held-out']);
    expect(await sets('mkdocs-material')).toContainEqual(['mkdocs-heldout-2.json', 'held-out']);
  });
});

describe('siteTable', () => {
  it('prints one Markdown row per set, off-topic as k of n, dashes where a set does not measure', () => {
    const row: SiteRow = {
      site: 'vite',
      set: 'held-out',
      file: 'vite-heldout.json',
      questions: 20,
      fact_in_answer: 0.75,
      right_page_first: 0.8,
      right_page_cited: 0.85,
      fact_when_cited: 0.9,
      off_topic_refused: 4,
      off_topic: 5,
      in_kb_refusal: 0.05,
      chunks: 100,
    };
    const lines = siteTable([
      row,
      { ...row, set: 'tuning conversations', right_page_cited: null, off_topic: null },
    ]).split('\n');
    expect(lines[2]).toBe(
      '| vite | held-out (vite-heldout.json) | 20 | 75.0 % | 80.0 % | 85.0 % | 90.0 % | 4 of 5 | 5.0 % |',
    );
    expect(lines[3]).toBe(
      '| vite | tuning conversations (vite-heldout.json) | 20 | 75.0 % | 80.0 % | – | 90.0 % | – | 5.0 % |',
    );
  });
});
