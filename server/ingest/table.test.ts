import { marked, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { compactTable } from './table.ts';

const padded = [
  '| Options                        |                                                           |',
  '| ------------------------------ | :-------------------------------------------------------: |',
  '| `--outDir <dir>`               | Output directory (default: `dist`) (`string`)             |',
  '| `--mode <mode>`                | Set env mode, `a \\| b` (`string`)                         |',
].join('\n');

describe('compactTable', () => {
  it('drops the padding and shortens the rule, keeping alignment and escaped pipes', () => {
    expect(compactTable(padded)).toBe(
      [
        '| Options |  |',
        '| --- | :---: |',
        '| `--outDir <dir>` | Output directory (default: `dist`) (`string`) |',
        '| `--mode <mode>` | Set env mode, `a \\| b` (`string`) |',
      ].join('\n'),
    );
  });

  it('renders the same table as the padded one', () => {
    const cells = (markdown: string) => {
      const table = marked.lexer(markdown)[0] as Tokens.Table;
      return {
        align: table.align,
        header: table.header.map((c) => c.text),
        rows: table.rows.map((r) => r.map((c) => c.text)),
      };
    };
    expect(cells(compactTable(padded))).toEqual(cells(padded));
  });

  it('reads rows without outer pipes', () => {
    expect(compactTable('a | b\n--- | ---\n1 | 2')).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |');
  });
});
