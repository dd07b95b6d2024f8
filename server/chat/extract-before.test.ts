/**
 * Extraction's sentences before the best one (extract.ts `choose`): with room left, the sentences before the
 * best sentence in its paragraph, nearest first, while they share a word with the question. Apart from
 * extract.test.ts to keep each file short.
 */
import { describe, expect, it } from 'vitest';
import { chunkMatch } from '../testing/chunks.ts';
import { extractAnswer } from './extract.ts';

const make = (id: string, content: string) => chunkMatch(id, content);

describe('the sentences before the best one in its paragraph', () => {
  it('the rule the best sentence qualifies comes with it', () => {
    const promo = make(
      'promo',
      [
        'Credits and promotions only apply to new signups. If you already have an account, or signed up before navigating to the unique promotion link, the credits will not apply to you.',
        '',
        'Promotion links are shared by our partners.',
      ].join('\n'),
    );
    const answer = extractAnswer('I already have an account. Can I still use a promotion link?', [promo]);
    expect(answer.text).toBe(
      'Credits and promotions only apply to new signups. [1] If you already have an account, or signed up before navigating to the unique promotion link, the credits will not apply to you. [1]',
    );
  });

  it('a default stated before the way to change it comes with it', () => {
    const skipped = make(
      'skip',
      'Skipped builds are disabled by default and can be enabled per service. To enable them, go to your Service Settings and toggle **Skipped Builds** under Feature Flags.',
    );
    const answer = extractAnswer('How do I enable skipped builds for a service?', [skipped]);
    expect(answer.text).toBe(
      'Skipped builds are disabled by default and can be enabled per service. [1] To enable them, go to your Service Settings and toggle **Skipped Builds** under Feature Flags. [1]',
    );
  });

  it('nearest first, while there is room (a "how do I" question keeps one sentence for a block)', () => {
    const skipped = make(
      'skip',
      'Skipped builds were added for monorepos with many services. Skipped builds are disabled by default and can be enabled per service. To enable them, go to your Service Settings and toggle **Skipped Builds** under Feature Flags.',
    );
    const answer = extractAnswer('How do I enable skipped builds for a service?', [skipped]);
    expect(answer.text).toBe(
      'Skipped builds are disabled by default and can be enabled per service. [1] To enable them, go to your Service Settings and toggle **Skipped Builds** under Feature Flags. [1]',
    );
  });

  it('never from the paragraph before', () => {
    const skipped = make(
      'skip',
      'Skipped builds are disabled by default and can be enabled per service.\n\nTo enable them, go to your Service Settings and toggle **Skipped Builds** under Feature Flags.',
    );
    const answer = extractAnswer('How do I enable skipped builds for a service?', [skipped]);
    expect(answer.text).toBe(
      'To enable them, go to your Service Settings and toggle **Skipped Builds** under Feature Flags. [1]',
    );
  });

  it('a sentence before that shares no word with the question is not added', () => {
    const ingest = make(
      'ingest',
      'Long sections are split between paragraphs so that every passage fits the model. Images, HTML tags and MDX components such as `<Banner>` are removed, while the text inside them is kept.',
    );
    const answer = extractAnswer('Are MDX components like Banner kept when documents are indexed?', [ingest]);
    expect(answer.text).toBe(
      'Images, HTML tags and MDX components such as `<Banner>` are removed, while the text inside them is kept. [1]',
    );
  });
});
