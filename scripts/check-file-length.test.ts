/**
 * Files stay small enough to read in one sitting. A source file (ts, mts, cts, tsx, js, mjs, cjs, css) of
 * more than MAX_LINES lines must say why near its top: a comment in its first REASON_WITHIN lines that starts
 * with the marker `Long file:` followed by the reason, e.g.
 *
 *   // Long file: every test shares one workerd harness, which takes seconds to start.
 *
 * Not read: supabase/migrations/ (shipped history, never edited) and generated files (a first-lines
 * `@generated` or "do not edit" marker); dependencies and build output are never walked (source-files.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from './source-files.ts';

const MAX_LINES = 400;
const REASON_WITHIN = 10;
/** The marker opens a comment line: `// Long file: …`, `/* Long file: …` or ` * Long file: …` in a doc comment. */
const MARKER = /^\s*(?:\/\/|\/\*+|\*)\s*Long file:\s*(.*?)\s*(?:\*\/)?$/;
const GENERATED = /@generated|do not edit/i;
const EXTENSIONS = ['ts', 'mts', 'cts', 'tsx', 'js', 'mjs', 'cjs', 'css'];
const NOT_READ = ['supabase/migrations/'];

interface Measured {
  path: string;
  lines: number;
  reason: string | null;
  generated: boolean;
}

function measure(path: string): Measured {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const head = text.split('\n').slice(0, REASON_WITHIN);
  const reason = head.map((line) => MARKER.exec(line)?.[1]).find((found) => found !== undefined) ?? null;
  // Lines as `wc -l` counts them (a last line without a newline counts too).
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return { path, lines, reason, generated: head.some((line) => GENERATED.test(line)) };
}

const files = sourceFiles(EXTENSIONS)
  .filter((path) => !NOT_READ.some((dir) => path.startsWith(dir)))
  .map(measure)
  .filter((file) => !file.generated);

describe(`source files over ${MAX_LINES} lines say why at the top`, () => {
  it('reads the tree', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it(`every file over ${MAX_LINES} lines has a "Long file:" reason in its first ${REASON_WITHIN} lines`, () => {
    const unexplained = files
      .filter((file) => file.lines > MAX_LINES && !file.reason)
      .map((file) => `${file.path}: ${file.lines} lines`);
    expect(unexplained, 'split the file, or write `Long file: <why>` in a comment at its top').toEqual([]);
  });

  it('a reason says something (a sentence, not just the marker)', () => {
    const empty = files
      .filter((file) => file.reason !== null && file.reason.split(/\s+/).length < 5)
      .map((file) => `${file.path}: "${file.reason}"`);
    expect(empty).toEqual([]);
  });
});
