import { describe, expect, it } from 'vitest';
import type { SearchChunkRow } from '../store/types.ts';
import {
  commonTitleWords,
  fieldBonuses,
  fieldMatch,
  namesTitle,
  TITLE_NAMED_WEIGHT,
  titleNamedBonuses,
} from './fields.ts';
import { decide } from './index.ts';
import { searchRow } from './search-row.ts';
import { contentWords } from '../chat/text.ts';

const row = (id: string, title: string, section: string | null, cosine: number, coverage: number): SearchChunkRow =>
  searchRow({ chunk_id: id, content: id, meta: { section }, document_id: id, document_title: title, cosine, coverage });

describe('fieldMatch', () => {
  it('is the share of the question’s content words in the page title or section path, plurals folded', () => {
    const words = new Set(['long', 'log', 'kept']);
    expect(fieldMatch(words, row('a', 'Logs', 'Logs › Retention', 0, 0))).toBeCloseTo(1 / 3, 12);
    expect(fieldMatch(words, row('b', 'Pricing', 'Plans', 0, 0))).toBe(0);
  });

  it('does not meet "log" in "Logging": a word as typed, not an English stem', () => {
    expect(fieldMatch(new Set(['log']), row('a', 'Logging', null, 0, 0))).toBe(0);
    expect(
      fieldBonuses('How do I log in?', [row('a', 'CLI', 'CLI › Log in', 0, 0)], { title: 0, heading: 0.05 }),
    ).toEqual([0.05]);
  });
});

describe('fieldBonuses: title above heading, rare words above common ones', () => {
  const weights = { title: 0.1, heading: 0.05, idf: true };
  it('a match in the page title counts more than the same match in a heading', () => {
    const [inTitle, inHeading] = fieldBonuses(
      'What port does the server use?',
      [row('a', 'Server port', 'Server port › Usage', 0, 0), row('b', 'Options', 'Options › Server port', 0, 0)],
      weights,
    );
    expect(inTitle!).toBeGreaterThan(inHeading!);
  });

  it('a word every candidate page carries in its title (the product name) tells no page apart', () => {
    const rows = [
      row('a', 'Vite 6.0 is out', 'Vite 6.0 is out › Node.js', 0, 0),
      row('b', 'Vite config', 'Vite config › port', 0, 0),
      row('c', 'Vite guide', 'Vite guide', 0, 0),
    ];
    const [release, config] = fieldBonuses('Which port does Vite use?', rows, weights);
    expect(config!).toBeGreaterThan(release!);
  });
});

describe('decide: the title and section fields in the order', () => {
  const options = { evidenceThreshold: 0.3, hybridThreshold: 0.39 };
  const pricing = row('pricing', 'Pricing', 'Plans', 0.5, 0.62);
  const logs = row('logs', 'Logs', 'Retention', 0.5, 0.6);

  it('puts the page named for the question first when the evidence is close, citing each on its own evidence', () => {
    const verdict = decide([pricing, logs], 'hybrid', options, 'How long are logs kept?');
    expect(verdict.kind === 'answer' && verdict.chunks.map((c) => [c.chunk_id, c.similarity])).toEqual([
      ['logs', expect.closeTo(0.55, 12)],
      ['pricing', expect.closeTo(0.56, 12)],
    ]);
    expect(verdict.evidence).toBeCloseTo(0.56, 12);
  });

  it('does not lift a weaker page over clearly better evidence, nor past the gate', () => {
    const far = row('logs', 'Logs', 'Retention', 0.3, 0.3);
    const verdict = decide([pricing, far], 'hybrid', options, 'How long are logs kept?');
    expect(verdict.kind === 'answer' && verdict.chunks[0]!.chunk_id).toBe('pricing');
    const refused = decide([row('logs', 'Logs', 'Logs', 0.36, 0.4)], 'hybrid', options, 'logs');
    expect(refused.kind).toBe('refuse');
  });

  it('is the evidence order without a question', () => {
    const verdict = decide([logs, pricing], 'hybrid', options);
    expect(verdict.kind === 'answer' && verdict.chunks[0]!.chunk_id).toBe('pricing');
  });
});

describe('namesTitle: the page the question names', () => {
  const asked = (q: string) => new Set(contentWords(q));
  it('is true when every content word of the title is among the question’s, plurals folded', () => {
    expect(namesTitle(asked('How long are logs kept?'), 'Logs')).toBe(true);
    expect(namesTitle(asked('Which port does the dev server use?'), 'Server Options')).toBe(false);
    expect(namesTitle(asked('How long are logs kept?'), 'Logs and Metrics')).toBe(false);
  });

  it('names no page with a title of no content word, or of only the site’s name', () => {
    expect(namesTitle(asked('What is it?'), 'What is it?')).toBe(false);
    expect(namesTitle(asked('Is Railway free?'), null)).toBe(false);
    expect(namesTitle(asked('Is Railway free?'), 'Railway', new Set(['railway']))).toBe(false);
  });

  it('does not require a word most candidate pages carry in their title (the site’s name)', () => {
    const rows = [
      row('logs', 'Railway Logs', null, 0, 0),
      row('logs', 'Railway Logs', 'Retention', 0, 0),
      row('pricing', 'Railway Pricing', null, 0, 0),
      row('metal', 'Railway Metal', null, 0, 0),
      row('cli', 'CLI', null, 0, 0),
    ];
    expect([...commonTitleWords(rows)]).toEqual(['railway']);
    expect(titleNamedBonuses('How long are logs kept?', rows)).toEqual([
      TITLE_NAMED_WEIGHT,
      TITLE_NAMED_WEIGHT,
      0,
      0,
      0,
    ]);
    expect(namesTitle(asked('How long are logs kept?'), 'Railway Logs')).toBe(false);
  });

  it('counts a title word per page, not per chunk: one page’s many chunks do not make its title common', () => {
    const rows = [row('logs', 'Logs', 'a', 0, 0), row('logs', 'Logs', 'b', 0, 0), row('logs', 'Logs', 'c', 0, 0)];
    expect(commonTitleWords([...rows, row('p', 'Pricing', null, 0, 0), row('m', 'Metal', null, 0, 0)]).size).toBe(0);
  });
});

describe('decide: the page the question names comes first', () => {
  const options = { evidenceThreshold: 0.3, hybridThreshold: 0.39 };
  // Evidence 0.6 against 0.56: too far apart for the title and section bonus alone (+0.017 for "logs").
  const pricing = row('pricing', 'Pricing', 'Plans', 0.58, 0.62);
  const logs = row('logs', 'Logs', 'Retention', 0.52, 0.6);

  it('puts the named page first, citing each on its own evidence, the gate reading the best evidence', () => {
    const verdict = decide([pricing, logs], 'hybrid', options, 'How long are logs kept?');
    expect(verdict.kind === 'answer' && verdict.chunks.map((c) => [c.chunk_id, c.similarity])).toEqual([
      ['logs', expect.closeTo(0.56, 12)],
      ['pricing', expect.closeTo(0.6, 12)],
    ]);
    expect(verdict.evidence).toBeCloseTo(0.6, 12);
    const without = decide([pricing, logs], 'hybrid', { ...options, titleNamedWeight: 0 }, 'How long are logs kept?');
    expect(without.kind === 'answer' && without.chunks[0]!.chunk_id).toBe('pricing');
  });

  it('lifts no page past the gate or the citation floor', () => {
    const weak = row('logs', 'Logs', 'Logs', 0.36, 0.4);
    expect(decide([weak], 'hybrid', options, 'How long are logs kept?').kind).toBe('refuse');
    const belowFloor = row('logs', 'Logs', 'Retention', 0.05, 0.05);
    const verdict = decide([pricing, belowFloor], 'hybrid', options, 'How long are logs kept?');
    expect(verdict.kind === 'answer' && verdict.chunks.map((c) => c.chunk_id)).toEqual(['pricing']);
  });
});
