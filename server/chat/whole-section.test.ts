import { describe, expect, it } from 'vitest';
import type { ChunkMatch } from '../store/types.ts';
import { extractAnswer } from './extract.ts';

const make = (id: string, content: string, heading: string, similarity = 0.5): ChunkMatch => ({
  chunk_id: id,
  content,
  meta: { section: `Doc › ${heading}`, heading_path: ['Doc', heading] },
  document_id: id,
  document_title: `Doc ${id}`,
  document_url: null,
  similarity,
});

const EMAIL = make(
  'email',
  [
    'SMTP is only available on the Pro plan and above.',
    '',
    'Free, Trial, and Hobby plans must use transactional email services with HTTPS APIs. SMTP is disabled on these plans to prevent spam and abuse.',
  ].join('\n'),
  'Email delivery',
);

describe('a short section is quoted whole', () => {
  it('the line that answers comes with the sentence that matched best, in reading order', () => {
    const { text } = extractAnswer('Can I send email over SMTP from a service on the Hobby plan?', [EMAIL]);
    expect(text).toBe(
      'SMTP is only available on the Pro plan and above. [1] Free, Trial, and Hobby plans must use transactional email services with HTTPS APIs. [1] SMTP is disabled on these plans to prevent spam and abuse. [1]',
    );
  });

  it('a longer section is cut as before', () => {
    const long = make(
      'long',
      `${EMAIL.content}\n\nWe recommend transactional email services for all plans. They have analytics. They retry failed sends.`,
      'Email delivery',
    );
    const { text } = extractAnswer('Can I send email over SMTP from a service on the Hobby plan?', [long]);
    expect(text).not.toContain('They retry failed sends.');
  });

  it('a lead-in whose block the chunk does not hold is left out', () => {
    const cut = make(
      'cut',
      'Linux allows around 8,192 file watchers by default. This happens with many files. To solve this, you can:',
      'ENOSPC',
    );
    const { text } = extractAnswer('How many file watchers does Linux allow by default?', [cut]);
    expect(text).toContain('8,192');
    expect(text).not.toContain('To solve this');
  });

  it('a sentence of another page naming a rarer word of the question stays beside it', () => {
    const imports = make(
      'imports',
      'CSS files are processed by PostCSS. Relative references are rebased. Import aliases and url rebasing also work for Sass and Less.',
      '@import inlining',
    );
    const stylus = make(
      'stylus',
      'Import aliases and url rebasing do not work with Stylus. It has its own API. Its API is older than Vite. Use Sass instead.',
      'Stylus',
      0.4,
    );
    const { text } = extractAnswer('Do import aliases and url rebasing work with Stylus?', [imports, stylus]);
    expect(text).toContain('Import aliases and url rebasing also work for Sass and Less. [1]');
    expect(text).toContain('do not work with Stylus');
  });
});
