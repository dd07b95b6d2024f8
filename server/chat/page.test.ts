/**
 * The page step on real PGlite: retrieval returns one section of a page (matchCount 1), the answer holds
 * the value only once the page's section whose heading names the question is searched and quoted; a section
 * the page step added is never offered as a related source, and a page search that brings nothing better
 * (or fails) leaves the first answer as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retrieve } from '../retrieval/index.ts';
import { openPgliteStore, type PgliteStore } from '../store/pglite.ts';
import { VISITOR } from '../testing/store.ts';
import { basis, withSimilarity } from '../testing/vectors.ts';
import { extractAnswer } from './extract.ts';
import { answerFromPage, namesQuestion, withPage } from './page.ts';

const QUESTION = 'What is the default site language?';

describe('the answer from the cited page (PGlite)', () => {
  let store: PgliteStore;
  afterAll(() => store?.close());
  beforeAll(async () => {
    store = await openPgliteStore(null);
    await store.ingestDocument({
      source: 'language.md',
      name: 'Changing the language',
      meta: {},
      checksum: 'language',
      model: 'm',
      chunks: [
        {
          content: 'Each alternate language of the site has a name and a link to its site language version.',
          meta: { section: 'Changing the language › Language selector' },
          embedding: basis(0),
        },
        {
          content: 'The default site language is English (`en`).',
          meta: { section: 'Changing the language › Site language' },
          embedding: basis(1),
        },
        {
          content: 'Translations are contributed by the community.',
          meta: { section: 'Changing the language › Contributing' },
          embedding: basis(2),
        },
      ],
    });
  });

  const ask = async () => {
    const embedding = withSimilarity(0, 0.9);
    const found = await retrieve(
      store,
      { claims: VISITOR, question: QUESTION, embedding },
      {
        evidenceThreshold: 0.35,
        matchCount: 1,
      },
    );
    if (found.kind !== 'answer') throw new Error('refused');
    return { found, embedding };
  };

  it('quotes the section of the cited page that retrieval did not return', async () => {
    const { found, embedding } = await ask();
    expect(found.chunks.map((c) => c.meta.section)).toEqual(['Changing the language › Language selector']);
    // Without the page step the value is in no chunk extraction reads.
    expect(extractAnswer(QUESTION, found.chunks).text).not.toContain('English');

    const { answer, chunks } = await answerFromPage(
      store,
      { claims: VISITOR, question: QUESTION, embedding },
      found,
      (c, layout) => extractAnswer(QUESTION, c, {}, layout),
    );
    expect(answer.text).toContain('The default site language is English (`en`).');
    // Cited: exactly the sections quoted; the page's unquoted sections are not offered as related sources.
    const quoted = answer.citations.map((c) => c.section);
    expect(quoted).toContain('Changing the language › Site language');
    expect(answer.related.map((r) => r.section)).not.toContain('Changing the language › Contributing');
    expect(chunks.length).toBeGreaterThan(found.chunks.length);
  });

  it('keeps the first answer when the page adds none of the question words it lacks', async () => {
    const question = 'What does each alternate language have?';
    const embedding = withSimilarity(0, 0.9);
    const found = await retrieve(
      store,
      { claims: VISITOR, question, embedding },
      {
        evidenceThreshold: 0.35,
        matchCount: 1,
      },
    );
    if (found.kind !== 'answer') throw new Error('refused');
    const first = extractAnswer(question, found.chunks);
    // It holds every word of the question: the page is not even searched.
    const unsearched = Object.create(store, {
      searchChunks: { value: () => Promise.reject(new Error('searched')) },
    }) as PgliteStore;
    const { answer, chunks } = await answerFromPage(
      unsearched,
      { claims: VISITOR, question, embedding },
      found,
      (c, l) => extractAnswer(question, c, {}, l),
    );
    expect(answer).toEqual(first);
    expect(chunks).toBe(found.chunks);
  });

  it('keeps the first answer when the page search fails', async () => {
    const { found, embedding } = await ask();
    const failing = Object.create(store, {
      searchChunks: { value: () => Promise.reject(new Error('connection reset')) },
    }) as PgliteStore;
    const { answer, chunks } = await answerFromPage(
      failing,
      { claims: VISITOR, question: QUESTION, embedding },
      found,
      (c, layout) => extractAnswer(QUESTION, c, {}, layout),
    );
    expect(answer).toEqual(extractAnswer(QUESTION, found.chunks));
    expect(chunks).toBe(found.chunks);
  });

  it('ranks a page section whose heading names the question as the page, the others last', async () => {
    const { found } = await ask();
    const rows = await store.searchChunks(VISITOR, {
      embedding: withSimilarity(0, 0.9),
      text: QUESTION,
      count: 10,
      mode: 'hybrid',
      filters: { document_ids: [found.chunks[0]!.document_id] },
    });
    const layout = withPage(QUESTION, found.chunks, found.chunks[0]!.document_id, rows, 'hybrid');
    const rankOf = (section: string) => layout.ranks[layout.chunks.findIndex((c) => c.meta.section === section)];
    expect(rankOf('Changing the language › Site language')).toBe(0);
    expect(rankOf('Changing the language › Contributing')).toBeGreaterThanOrEqual(1);
    expect(layout.retrieved).toBe(1);
  });
});

describe('namesQuestion', () => {
  const own = new Set(['default', 'site', 'language']);
  it('needs a question word to make at least half of the heading', () => {
    expect(namesQuestion({ meta: { section: 'Setup › Site language' } }, own)).toBe(true);
    expect(namesQuestion({ meta: { section: 'Configuration' } }, own)).toBe(false);
    expect(namesQuestion({ meta: { section: 'Language packs for translators' } }, own)).toBe(false);
  });
});
