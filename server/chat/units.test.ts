import { describe, expect, it } from 'vitest';
import { contentWords } from './text.ts';
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

  it('joins a lead-in with no word of its own to the sentence before it, which then introduces the block', () => {
    // Vite's releases.md, "TypeScript Definitions": "This is because:" was dropped, and the list lost its lead-in.
    const typescript = [
      'We may ship incompatible changes to TypeScript definitions between minor versions. This is because:',
      '',
      '- Sometimes TypeScript itself ships incompatible changes between minor versions.',
      '- Occasionally we may need to adopt features that are only available in a newer version of TypeScript.',
    ].join('\n');
    const [lead, list] = unitsOf(typescript, new Set());
    expect(lead!.markdown).toBe(
      'We may ship incompatible changes to TypeScript definitions between minor versions. This is because:',
    );
    expect(lead!.introduces).toBe(list!.index);
    expect(list!.leadIn).toBe(lead!.index);
  });

  it("picks a long table's rows by the question's words that not every row holds", () => {
    // Railway's deployment statuses (integrations/api/manage-deployments.md): every row says "Deployment", so
    // that word picked all rows and the table was cut at REMOVED, before the WAITING row the visitor asked about.
    const statuses = [
      '| Status | Description |',
      '|--------|-------------|',
      '| `BUILDING` | Deployment is being built |',
      '| `DEPLOYING` | Deployment is being deployed |',
      '| `SUCCESS` | Deployment is running successfully |',
      '| `FAILED` | Deployment failed to build or deploy |',
      '| `CRASHED` | Deployment crashed after starting |',
      '| `REMOVED` | Deployment was removed |',
      '| `SLEEPING` | Deployment is sleeping (inactive) |',
      '| `SKIPPED` | Deployment was skipped |',
      '| `WAITING` | Deployment is waiting for approval |',
      '| `QUEUED` | Deployment is queued |',
    ].join('\n');
    const asked = new Set(contentWords('My deployment status says WAITING, what does that mean?'));
    const [t] = unitsOf(statuses, asked);
    expect(t!.markdown).toBe(
      '| Status | Description |\n|--------|-------------|\n| `WAITING` | Deployment is waiting for approval |',
    );
    // Only words every row holds: no row is picked by them, so the first rows are shown.
    const [all] = unitsOf(statuses, new Set(contentWords('What does a deployment status mean?')));
    expect(all!.markdown.split('\n')).toHaveLength(2 + MAX_TABLE_ROWS);
  });
});
