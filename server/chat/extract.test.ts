import { describe, expect, it } from 'vitest';
import type { ChunkMatch } from '../store/types.ts';
import { extractAnswer } from './extract.ts';
import { sentences } from './text.ts';

const refunds: ChunkMatch = {
  chunk_id: 'c1',
  content: [
    '## Refunds',
    '',
    'Our plans renew monthly. Refunds are available within 14 days of a charge.',
    'To request a refund, open a ticket from the billing page.',
    '',
    '- Annual plans are refunded pro rata.',
    '- Credits are never refunded.',
    '',
    '```sh',
    'refund --all',
    '```',
  ].join('\n'),
  meta: { section: 'Billing › Refunds', page: 3, url: 'https://docs.example/billing#refunds' },
  document_id: 'd1',
  document_title: 'Billing',
  document_url: 'https://docs.example/billing',
  similarity: 0.71,
};

const support: ChunkMatch = {
  chunk_id: 'c2',
  content: 'Support answers within one business day. Refund questions go to the billing team.',
  meta: {},
  document_id: 'd2',
  document_title: 'Support',
  document_url: null,
  similarity: 0.4,
};

describe('sentences', () => {
  it('splits Markdown into verbatim sentences, skipping headings and code, keeping list items', () => {
    expect(sentences(refunds.content)).toEqual([
      'Our plans renew monthly.',
      'Refunds are available within 14 days of a charge.',
      'To request a refund, open a ticket from the billing page.',
      '- Annual plans are refunded pro rata.',
      '- Credits are never refunded.',
    ]);
  });
});

describe('extractAnswer', () => {
  it('copies at most three sentences verbatim, in reading order, each with its [n] marker', () => {
    const answer = extractAnswer('How do I request a refund?', [refunds, support]);
    const parts = answer.text.split(/(?<=\[\d\]) /);
    expect(parts.length).toBeLessThanOrEqual(3);
    for (const part of parts) {
      const [, sentence, n] = /^(.*) \[(\d)\]$/.exec(part)!;
      const source = n === '1' ? refunds : support;
      expect(source.content).toContain(sentence!);
    }
    // The sentence that actually answers the question is chosen, not merely the chunk's first sentence.
    expect(answer.text).toContain('To request a refund, open a ticket from the billing page. [1]');
    expect(answer.text).not.toContain('Our plans renew monthly.');
  });

  it('cites every qualifying chunk with title, page, section and link', () => {
    const { citations } = extractAnswer('refund', [refunds, support]);
    expect(citations).toEqual([
      {
        n: 1,
        chunk_id: 'c1',
        document_id: 'd1',
        title: 'Billing',
        page: 3,
        section: 'Billing › Refunds',
        url: 'https://docs.example/billing#refunds',
        similarity: 0.71,
        excerpt:
          'Our plans renew monthly. Refunds are available within 14 days of a charge. To request a refund, open a ticket from the billing page. Annual plans are refunded pro rata. Credits are never refunded.',
      },
      {
        n: 2,
        chunk_id: 'c2',
        document_id: 'd2',
        title: 'Support',
        page: null,
        section: null,
        url: null,
        similarity: 0.4,
        excerpt: 'Support answers within one business day. Refund questions go to the billing team.',
      },
    ]);
  });

  it('still answers from the best chunk when no sentence shares a word with the question', () => {
    const answer = extractAnswer('zzz', [support]);
    expect(answer.text).toBe('Support answers within one business day. [1]');
  });
});

describe('extractAnswer: choice and citations', () => {
  const make = (id: string, content: string, meta: ChunkMatch['meta'] = {}, document_id = id): ChunkMatch => ({
    chunk_id: id,
    content,
    meta,
    document_id,
    document_title: `Doc ${document_id}`,
    document_url: null,
    similarity: 0.5,
  });

  it('prefers the sentence with the rare question words over one with many common ones', () => {
    const chunk = make(
      'a',
      'The city has a large port. The city has a port and a city hall. The Normans conquered the city in 1066. The city is old.',
    );
    const answer = extractAnswer('When did the Normans conquer the city?', [chunk]);
    const sentencesChosen = answer.text.split(/(?<=\]) /);
    expect(sentencesChosen.length).toBeLessThanOrEqual(3);
    expect(answer.text).toContain('The Normans conquered the city in 1066. [1]');
    // Reading order is kept whatever the scores.
    const first = answer.text.indexOf('Normans');
    for (const other of ['large port', 'city hall', 'is old']) {
      const at = answer.text.indexOf(other);
      if (at >= 0 && other === 'is old') expect(at).toBeGreaterThan(first);
      if (at >= 0 && other !== 'is old') expect(at).toBeLessThan(first);
    }
  });

  it('cites one chunk per document section, at most five, numbered in order', () => {
    const chunks = [
      make('1', 'Alpha refunds.', { section: 'A › Refunds' }, 'd1'),
      make('2', 'More alpha refunds.', { section: 'A › Refunds' }, 'd1'),
      make('3', 'Beta refunds.', { section: 'A › Other' }, 'd1'),
      make('4', 'Gamma refunds.', {}, 'd2'),
      make('5', 'Gamma again refunds.', {}, 'd2'),
      ...['6', '7', '8', '9'].map((id) => make(id, `Doc ${id} refunds.`, {}, `d${id}`)),
    ];
    const { citations, text } = extractAnswer('refunds', chunks);
    expect(citations.map((c) => c.chunk_id)).toEqual(['1', '3', '4', '6', '7']);
    expect(citations.map((c) => c.n)).toEqual([1, 2, 3, 4, 5]);
    for (const [, n] of text.matchAll(/\[(\d+)\]/g)) expect(Number(n)).toBeLessThanOrEqual(5);
    expect(text).not.toContain('More alpha');
  });
});
