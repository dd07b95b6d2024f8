import { describe, expect, it } from 'vitest';
import type { SearchChunkRow } from '../store/types.ts';
import { decide } from './index.ts';
import { searchRow } from './search-row.ts';
import { isSecondary, SECONDARY_PAGE_PENALTY, secondaryPenalties } from './secondary.ts';

const row = (id: string, title: string, content: string, coverage: number, cosine = coverage): SearchChunkRow =>
  searchRow({
    chunk_id: `${id}-chunk`,
    content,
    meta: { section: title },
    document_id: id,
    document_title: title,
    cosine,
    coverage,
  });

describe('isSecondary', () => {
  it('knows comparison, migration, announcement and changelog pages by their titles (real titles of the corpora)', () => {
    for (const title of [
      'Railway vs Vercel: Technical Comparison and Migration Guide',
      'Railway vs. Heroku',
      'Migrate from Heroku',
      'Migration from v7',
      'Vite 6.0 is out!',
      'Announcing Vite 2.0',
      'Changelog',
      'Release notes',
    ])
      expect(isSecondary(title), title).toBe(true);
    // A feature named in the plural ("Database migrations") is a page about the feature, not a migration guide.
    for (const title of ['Workspaces', 'Server Options', 'Setting up a blog', 'Database migrations', 'Outbound'])
      expect(isSecondary(title), title).toBe(false);
    expect(isSecondary(null)).toBe(false);
  });
});

describe('secondaryPenalties', () => {
  const pages = [
    row(
      'render',
      'Railway vs Render: Technical Comparison and Migration Guide',
      'Railway: you end up paying extra for seats',
      0.6,
    ),
    row(
      'vercel',
      'Railway vs Vercel: Technical Comparison and Migration Guide',
      'Railway runs long-running servers',
      0.5,
    ),
    row(
      'workspaces',
      'Workspaces',
      'Railway: adding members to the workspace does not incur any additional seat cost',
      0.58,
    ),
    row('plans', 'Plans', 'Railway plans and seats', 0.4),
  ];

  it('discounts comparison pages the question does not name; the product name every comparison carries does not name one', () => {
    expect(secondaryPenalties('Do I pay extra for every member I add to my Railway workspace?', pages)).toEqual([
      SECONDARY_PAGE_PENALTY,
      SECONDARY_PAGE_PENALTY,
      0,
      0,
    ]);
  });

  it('does not discount the page a question names ("Render"), only its sibling', () => {
    expect(secondaryPenalties('How does Railway pricing differ from Render?', pages)).toEqual([
      0,
      SECONDARY_PAGE_PENALTY,
      0,
      0,
    ]);
  });

  it('is 0 everywhere when no candidate is such a page', () => {
    expect(secondaryPenalties('Do I pay extra per member?', pages.slice(2))).toEqual([0, 0]);
  });

  it('puts the page about the feature first when its evidence is close, in decide’s order; the gate reads the evidence as it was', () => {
    const got = decide(
      pages,
      'lexical',
      { evidenceThreshold: 0.35, lexicalThreshold: 0.5 },
      'Do I pay extra for every member I add to my workspace?',
    );
    expect(got.kind).toBe('answer');
    if (got.kind !== 'answer') return;
    expect(got.chunks.map((c) => c.document_id)).toEqual(['workspaces', 'render', 'vercel', 'plans']);
    expect(got.evidence).toBeCloseTo(0.6, 12);
    expect(got.chunks[1]!.similarity).toBeCloseTo(0.6, 12);
  });
});
