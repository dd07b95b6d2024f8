/**
 * Comments, test names, messages and docs say *why* in words a reader of this repository can check. The
 * issues, the seed specification and its requirement and user-story numbers that earlier work was done
 * against are not in the repository, so citing one by its number tells a reader
 * nothing; CITATIONS below lists the forms. This test fails on any such citation in the source, the migrations and the Markdown, and
 * names the file and line: write what the code does and why instead, or link a page under docs/ (or name a
 * commit, when the point is what changed when).
 *
 * Not read: test/fixtures/ (third-party data) and bench-results/ (dated output the bench writes).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from './source-files.ts';

const EXTENSIONS = ['ts', 'mts', 'cts', 'tsx', 'js', 'mjs', 'cjs', 'css', 'sql', 'html', 'md', 'mdx', 'yml', 'toml'];
const NOT_READ = ['test/fixtures/', 'bench-results/'];

/** Each pattern is one way a citation of a document outside the repository has been written here. */
const CITATIONS: [name: string, pattern: RegExp][] = [
  ['an issue number', /\bissues?[ -]?#?\d+/i],
  ['a named issue', /\bissue "/i],
  ['a possessive of the issue or the seed', /\b(?:issue|seed)'s\b/i],
  ['a seed document', /\bseeds? (?:0\d\d|US\d|FR-)|\(seed:[ ](?!(?:number|string|boolean)\b)/i],
  ['a requirement number', /\bN?FR-\d+/],
  ['a user-story number', /\bUS\d+\b/],
];

/** The citations on one file's lines, as `path:line: text`. */
function citationsIn(path: string, text: string): string[] {
  const hits: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const [name, pattern] of CITATIONS) {
      if (pattern.test(line)) hits.push(`${path}:${i + 1}: ${name}: ${line.trim().slice(0, 160)}`);
    }
  });
  return hits;
}

describe('comments cite nothing outside the repository', () => {
  it('finds each kind of citation, and not the words used in code', () => {
    // Built from parts so that this file does not cite anything itself.
    const cited = [
      'iss' + 'ue 13',
      'Iss' + 'ues 13 and 14',
      'iss' + 'ue-11',
      'iss' + 'ue #5',
      'iss' + 'ue "Speed at scale"',
      'the iss' + "ue's report",
      'the se' + "ed's gate",
      'se' + 'ed 000',
      '(se' + 'ed: top-K = 5)',
      'se' + 'ed U' + 'S1-2',
      'F' + 'R-008',
      'NF' + 'R-003',
      'U' + 'S4',
    ];
    for (const line of cited) expect(citationsIn('x', line), line).not.toEqual([]);
    const code = [
      'parsed.issues[0]',
      'useTestApi({ seed: true })',
      '--seed 556628949',
      'mulberry32(seed: number)',
      'fuzz(seed)',
      'supabase/seed.sql',
      'en-US',
      'FRAME',
    ];
    for (const line of code) expect(citationsIn('x', line), line).toEqual([]);
  });

  it('in every source file, migration and Markdown page', () => {
    const files = sourceFiles(EXTENSIONS).filter((path) => !NOT_READ.some((dir) => path.startsWith(dir)));
    expect(files.length).toBeGreaterThan(100); // the walk found the tree
    const hits = files.flatMap((path) => citationsIn(path, readFileSync(join(ROOT, path), 'utf8')));
    expect(
      hits,
      'say what the code does (or link docs/) instead of citing an issue, the seed or a requirement number',
    ).toEqual([]);
  });
});
