/**
 * What the Markdown says about the repository, checked against it (scripts/docs-truth/check.test.ts runs it in
 * `npm test`):
 *   - every `npm run X` names a script in package.json;
 *   - every repository path written in backticks exists (a glob matches at least one file; `:line` and
 *     `#anchor` suffixes are dropped);
 *   - every environment variable a Markdown file names (`KB_…`, `CHAT_…`, `SUPABASE_…`, and the Worker's
 *     variables) is read by the code;
 *   - every variable the code reads is in docs/configuration.md.
 * Each finding is one line, `file:line: what is wrong`, so a failing run says where to look.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, sourceFiles } from '../source-files.ts';

export interface Finding {
  file: string;
  line: number;
  message: string;
}

export const format = (f: Finding) => `${f.file}:${f.line}: ${f.message}`;

/** Top-level entries of the repository: a backticked token whose first segment is one of them is a path. */
function topLevel(files: string[]): Set<string> {
  return new Set(files.map((f) => f.split('/')[0]!));
}

/** Code that runs in the product or its scripts: not tests, fixtures or test helpers. */
export function codeFiles(root = ROOT): string[] {
  return sourceFiles(['ts', 'mjs', 'cjs', 'js'], root).filter(
    (f) =>
      !/\.test\.ts$|(^|\/)fixtures?\/|\.fixtures\/|^test\/|\/testing\/|\/test\/|\.d\.mts$/.test(f) &&
      !f.startsWith('widget/') &&
      !f.startsWith('console/') &&
      !f.startsWith('demo/') &&
      !/^(vitest|web-test-runner)[^/]*$/.test(f),
  );
}

/**
 * The environment variables the code reads: `env.<NAME>`, `env['<NAME>']`, and `(env, '<NAME>'` (the config's
 * helpers take the environment and a name), each with where it is read first. `files`: which code to read.
 */
export function envReadByCode(root = ROOT, files = codeFiles(root)): Map<string, string> {
  const read = new Map<string, string>();
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    lines.forEach((text, i) => {
      for (const m of text.matchAll(/\benv(?:\.|\[['"`])([A-Z][A-Z0-9_]+)|\benv,\s*['"`]([A-Z][A-Z0-9_]+)['"`]/g)) {
        const name = m[1] ?? m[2]!;
        if (!read.has(name)) read.set(name, `${file}:${i + 1}`);
      }
    });
  }
  return read;
}

/** The bindings wrangler.toml declares (`binding = "X"`, `name = "X"` of a rate limiter): read as env.X, not set by hand. */
function wranglerBindings(root = ROOT): Set<string> {
  const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8');
  return new Set([...toml.matchAll(/^(?:binding|name)\s*=\s*"([A-Z][A-Z0-9_]+)"/gm)].map((m) => m[1]!));
}

/** Every finding over every Markdown file of the repository. */
export function checkDocs(root = ROOT): Finding[] {
  const findings: Finding[] = [];
  const all = sourceFiles([], root);
  const tracked = new Set(all);
  const tops = topLevel(all);
  const scripts = new Set(Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts ?? {}));
  const read = envReadByCode(root);
  const bindings = wranglerBindings(root);
  // A variable a Markdown file names may be read by a test (CONTRIBUTING's KB_SCREENSHOTS) or a script.
  const envNames = new Set(envReadByCode(root, sourceFiles(['ts', 'mjs', 'cjs', 'js'], root)).keys());

  for (const file of sourceFiles(['md'], root)) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    lines.forEach((text, i) => {
      const at = (message: string) => findings.push({ file, line: i + 1, message });
      for (const m of text.matchAll(/\bnpm run ([a-z][\w:-]*)/g)) {
        if (!scripts.has(m[1]!)) at(`\`npm run ${m[1]}\`: package.json has no script "${m[1]}"`);
      }
      for (const m of text.matchAll(/`([^`\s]+)`/g)) {
        const path = repositoryPath(m[1]!, tops);
        if (path && !pathExists(path, tracked, root)) at(`\`${m[1]}\`: no such file or folder in the repository`);
      }
      for (const m of text.matchAll(/\b((?:KB|CHAT|SUPABASE)_[A-Z0-9_]*[A-Z0-9])\b/g)) {
        if (!envNames.has(m[1]!)) at(`${m[1]}: named as an environment variable, but no code reads it`);
      }
    });
  }

  const config = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
  for (const [name, where] of read) {
    if (bindings.has(name)) continue;
    if (!new RegExp(`\\b${name}\\b`).test(config)) {
      findings.push({
        file: where.split(':')[0]!,
        line: Number(where.split(':')[1]),
        message: `reads ${name}, which docs/configuration.md does not list`,
      });
    }
  }
  return findings;
}

/**
 * The repository path a backticked token names, or null when it is not one: its first segment must be a
 * top-level entry of the repository (so `dist/…`, URLs, commands and identifiers are left alone).
 */
export function repositoryPath(token: string, tops: Set<string>): string | null {
  const path = token
    .replace(/^\.\//, '')
    .replace(/[#?].*$/, '')
    .replace(/:\d+(-\d+)?$/, '')
    .replace(/[.,;:)]+$/, '');
  if (!path || /[<>{}$=@…]|^https?:/.test(path)) return null;
  const first = path.split('/')[0]!;
  if (!tops.has(first)) return null;
  if (!path.includes('/') && !/\.\w+$/.test(path)) return null;
  return path;
}

function pathExists(path: string, tracked: Set<string>, root: string): boolean {
  if (path.includes('*')) {
    const pattern = new RegExp(
      `^${path
        .replace(/[.+^$()|[\]\\]/g, '\\$&')
        .replace(/\*\*\//g, '(?:.*/)?')
        .replace(/\*\*/g, '.*')
        .replace(/\*/g, '[^/]*')}$`,
    );
    return [...tracked].some((f) => pattern.test(f) || pattern.test(`${f}/`));
  }
  return existsSync(join(root, path));
}
