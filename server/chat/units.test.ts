import { describe, expect, it } from 'vitest';
import { MAX_CODE_LINES, MAX_LIST_ITEMS, MAX_TABLE_ROWS, unitsOf } from './units.ts';

const refunds = {
  content: [
    'Our plans renew monthly. Refunds are available within 14 days of a charge.',
    'To request a refund, run this from the billing folder:',
    '',
    '```sh',
    'refund --all',
    '```',
    '',
    'Refund rules:',
    '',
    '- Annual plans are refunded pro rata.',
    '- Credits are never refunded.',
  ].join('\n'),
};

describe('unitsOf', () => {
  it('splits paragraphs into verbatim sentences and keeps lists, code and tables whole, each block tied to its lead-in', () => {
    const units = unitsOf(refunds.content, new Set());
    expect(units.map((u) => [u.kind, u.markdown])).toEqual([
      ['sentence', 'Our plans renew monthly.'],
      ['sentence', 'Refunds are available within 14 days of a charge.'],
      ['sentence', 'To request a refund, run this from the billing folder:'],
      ['code', '```sh\nrefund --all\n```'],
      ['sentence', 'Refund rules:'],
      ['list', '- Annual plans are refunded pro rata.\n- Credits are never refunded.'],
    ]);
    expect([units[2]!.introduces, units[3]!.leadIn, units[4]!.introduces, units[5]!.leadIn]).toEqual([3, 2, 5, 4]);
    // A sentence not ending in ":" introduces nothing.
    expect(units[1]!.introduces).toBeUndefined();
  });

  it('bounds blocks: code lines, list items, and a long table keeps its header and the rows the question names', () => {
    const code = `\`\`\`\n${Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n')}\n\`\`\``;
    const list = Array.from({ length: 12 }, (_, i) => `${i + 1}. Step ${i}`).join('\n');
    const table = [
      '| Plan | Price |',
      '| --- | --- |',
      ...Array.from({ length: 10 }, (_, i) => `| Plan${i} | $${i} |`),
      '| Hobby | $5 |',
    ].join('\n');
    const [c, l, t] = unitsOf(`${code}\n\n${list}\n\n${table}`, new Set(['hobby']));
    expect(c!.markdown.split('\n')).toHaveLength(MAX_CODE_LINES + 2);
    expect(l!.markdown.split('\n')).toHaveLength(MAX_LIST_ITEMS);
    expect(t!.markdown).toBe('| Plan | Price |\n| --- | --- |\n| Hobby | $5 |');
    const [t2] = unitsOf(table, new Set(['nothing']));
    expect(t2!.markdown.split('\n')).toHaveLength(2 + MAX_TABLE_ROWS);
  });
});
