/**
 * Turns the CLI's paths into the list of files to ingest: directories walked recursively in sorted order
 * (dotfiles and node_modules skipped), each file with its source id (path relative to the working
 * directory, posix separators) and the path its URL is built from (relative to the folder it was found in).
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { SourceType } from './document.ts';

export const SUPPORTED_EXTENSIONS: Record<string, SourceType> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdx': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
  '.txt': 'text',
};

export interface InputFile {
  /** Absolute path. */
  file: string;
  /** The document's identity in the store: relative to the working directory, posix separators. */
  source: string;
  /** Relative to the folder given on the command line (or the file name), without extension: for URLs. */
  urlPath: string;
  format: SourceType;
}

export interface ResolvedInputs {
  files: InputFile[];
  /** Paths named on the command line that cannot be ingested, with the reason. */
  invalid: { source: string; error: string }[];
  /** Files inside given folders whose extension is not supported (reported, not ingested). */
  skipped: string[];
  /** Source-id prefixes of the folders given (`docs/`): what `--prune` may delete under. */
  roots: string[];
}

export async function resolveInputs(inputs: string[], cwd = process.cwd()): Promise<ResolvedInputs> {
  const result: ResolvedInputs = { files: [], invalid: [], skipped: [], roots: [] };
  const seen = new Set<string>();
  const add = (file: string, root: string): void => {
    const source = toSource(file, cwd);
    if (seen.has(source)) return;
    seen.add(source);
    const format = formatOf(file);
    if (format) result.files.push({ file, source, urlPath: urlPathOf(file, root), format });
    else result.skipped.push(source);
  };
  for (const input of inputs) {
    const absolute = path.resolve(cwd, input);
    const info = await stat(absolute).catch((error: NodeJS.ErrnoException) => error);
    if (info instanceof Error) {
      const reason = info.code === 'ENOENT' ? 'no such file or directory' : info.message;
      result.invalid.push({ source: toSource(absolute, cwd), error: reason });
    } else if (info.isDirectory()) {
      const root = toSource(absolute, cwd);
      result.roots.push(root === '' ? '' : `${root}/`);
      for (const file of await walk(absolute)) add(file, absolute);
    } else if (!formatOf(absolute)) {
      result.invalid.push({ source: toSource(absolute, cwd), error: unsupportedMessage(absolute) });
    } else {
      add(absolute, path.dirname(absolute));
    }
  }
  return result;
}

export function formatOf(file: string): SourceType | null {
  return SUPPORTED_EXTENSIONS[path.extname(file).toLowerCase()] ?? null;
}

export function unsupportedMessage(file: string): string {
  const ext = path.extname(file) || '(none)';
  return `unsupported file type ${ext}; supported: ${Object.keys(SUPPORTED_EXTENSIONS).join(', ')}`;
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    // Symbolic links to folders are not followed (no cycles); links to files are read like files.
    if (entry.isDirectory()) files.push(...(await walk(full)));
    else if (entry.isFile() || entry.isSymbolicLink()) files.push(full);
  }
  return files;
}

function toSource(file: string, cwd: string): string {
  return path.relative(cwd, file).split(path.sep).join('/');
}

/** `guides/setup.md` → `guides/setup`; `guides/index.md` → `guides` (how static site generators map them). */
function urlPathOf(file: string, root: string): string {
  const relative = path.relative(root, file).split(path.sep).join('/');
  const withoutExt = relative.slice(0, relative.length - path.extname(relative).length);
  return withoutExt.replace(/(^|\/)index$/, '');
}
