/**
 * The repository's own text files, for the checks that read the whole tree (check-comments.test.ts,
 * check-file-length.test.ts). Walks the folder instead of asking git, so a new file is checked before it
 * is added. Skips what is not ours or not written by hand: dependencies, build and test output, local data
 * (the folders .gitignore lists), and symbolic links (node_modules is one in a worktree).
 */
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const ROOT = new URL('..', import.meta.url).pathname;

/** Folders never walked: .gitignore's, plus git's own. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules', 'dist', '.kb-data', '.wrangler', 'test-results']);

/**
 * Paths relative to the repository root, with `/` separators, sorted; only files whose name ends in one of
 * `extensions` (every file when it is empty).
 */
export function sourceFiles(extensions: readonly string[], root = ROOT): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isSymbolicLink()) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(path);
      } else if (
        entry.isFile() &&
        (extensions.length === 0 || extensions.some((ext) => entry.name.endsWith(`.${ext}`)))
      ) {
        found.push(relative(root, path).split(sep).join('/'));
      }
    }
  };
  walk(root);
  return found.sort();
}
