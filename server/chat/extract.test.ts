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
      },
      { n: 2, chunk_id: 'c2', document_id: 'd2', title: 'Support', page: null, section: null, url: null, similarity: 0.4 },
    ]);
  });

  it('still answers from the best chunk when no sentence shares a word with the question', () => {
    const answer = extractAnswer('zzz', [support]);
    expect(answer.text).toBe('Support answers within one business day. [1]');
  });
});
