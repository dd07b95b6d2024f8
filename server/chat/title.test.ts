import { describe, expect, it } from 'vitest';
import { sessionTitle } from './title.ts';

describe('sessionTitle', () => {
  it('keeps a short message as it is', () => {
    expect(sessionTitle('Refund?')).toBe('Refund?');
  });

  it('cuts at a word boundary within 80 characters and appends an ellipsis', () => {
    expect(
      sessionTitle("What is the university's policy on academic integrity and plagiarism in submitted coursework?"),
    ).toBe("What is the university's policy on academic integrity and plagiarism…");
  });

  it('never exceeds 80 characters plus the ellipsis, and folds whitespace', () => {
    const title = sessionTitle(`  ${'word '.repeat(40)}\n\nend`);
    expect(title.length).toBeLessThanOrEqual(81);
    expect(title.endsWith('…')).toBe(true);
    expect(title).not.toMatch(/\s{2}|\n/);
  });

  it('cuts a single over-long word hard', () => {
    expect(sessionTitle('x'.repeat(120))).toBe(`${'x'.repeat(80)}…`);
  });

  it('keeps a message of exactly 80 characters whole', () => {
    const message = 'a'.repeat(80);
    expect(sessionTitle(message)).toBe(message);
  });
});
