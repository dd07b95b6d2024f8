/**
 * KB_DATA_DIR is its owner's alone: it holds the visitors' conversations, refresh-token hashes, the local
 * JWT and answer-write secrets and a console-set webhook secret in plain text. PGlite writes its files with
 * the process's umask (folders 755, `pg_hba.conf` 666 under the usual 022), so:
 * - the process's umask becomes 077 before the database is opened — every file and folder PGlite (or
 *   anything else in this process) creates afterwards is owner-only;
 * - a missing directory is created 0700 — the folder itself is what keeps other users out: without search
 *   permission on it, no file under it can be opened whatever its own mode;
 * - PGlite's file system layer sets some files' modes itself (postgresql.conf, pg_hba.conf: 666, whatever
 *   the umask), so the store tightens again after the database opens and when it closes (`tightenDataDir`);
 * - an existing one with anything readable, writable or searchable by group or others is tightened (folders
 *   to 0700, files to owner-only, keeping the owner's bits) with a warning that says how many entries were
 *   loose. Symbolic links are not followed.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

/** Owner-only: what nothing under KB_DATA_DIR may have beyond. */
const OTHERS = 0o077;

export function ownDataDir(dir: string, warn: (message: string) => void = console.warn): void {
  // A worker thread may not set the umask (Node throws); the main thread that opens the database does.
  if (isMainThread) process.umask(OTHERS);
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700); // `mode` is masked by the umask of the moment; say it outright
    return;
  }
  const loose = looseEntries(dir);
  if (loose.length === 0) return;
  for (const { path, mode } of loose) chmodSync(path, mode & 0o700);
  warn(
    `[kb-chat] KB_DATA_DIR ${dir}: ${loose.length} file(s) or folder(s) were open to other users (e.g. ${loose[0]!.path}); ` +
      'made owner-only (0700 folders, owner-only files).',
  );
}

/** Every entry under `dir` (itself included) whose mode grants group or others anything; links skipped. */
export function looseEntries(dir: string): { path: string; mode: number }[] {
  const found: { path: string; mode: number }[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if (stat.mode & OTHERS) found.push({ path, mode: stat.mode & 0o7777 });
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

/** After PGlite has written its files: owner-only again, silently (these are this process's own). */
export function tightenDataDir(dir: string): void {
  for (const { path, mode } of looseEntries(dir)) chmodSync(path, mode & 0o700);
}
