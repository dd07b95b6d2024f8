/**
 * A Markdown table without its alignment padding. Generators and editors pad every cell to the widest one
 * in its column (Vite's CLI page pads a two-column table to 218 characters a row; Railway's limits page has a
 * rule line of 454 dashes), and the embedding model's tokenizer counts every run of dashes as tokens: the
 * header and rule alone then outgrow what the chunker can repeat over each part of a long table, so it fell
 * back to splitting the table as prose — its rows reached answers as one run-on line of pipes. Trimmed cells
 * and a `---` rule render the same table.
 */

/** Cells of one table line, split at pipes that are not escaped (`\|` stays inside its cell). */
function cellsOf(line: string): string[] {
  const trimmed = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '');
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** A rule cell (`:---`, `---:`, `:---:`, `---`) shortened to three dashes, its alignment kept. */
function ruleCell(cell: string): string | null {
  const match = /^(:?)-+(:?)$/.exec(cell);
  return match ? `${match[1]}---${match[2]}` : null;
}

/** `raw`: a table as the Markdown lexer found it (header, rule, rows). Anything else is returned as given. */
export function compactTable(raw: string): string {
  const lines = raw.trim().split('\n');
  if (lines.length < 2) return raw.trim();
  const rule = cellsOf(lines[1]!).map(ruleCell);
  if (rule.some((cell) => cell === null)) return raw.trim();
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [row(cellsOf(lines[0]!)), row(rule as string[]), ...lines.slice(2).map((line) => row(cellsOf(line)))].join(
    '\n',
  );
}
