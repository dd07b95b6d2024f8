/**
 * Test support: one migrated, empty database that the test helpers' in-memory stores start from
 * (openPgliteStore's `loadDataDir`), instead of each running PGlite's initdb. On this repository's 2-core
 * machine an empty PGlite took 3 to 6 s of CPU to create and one loaded from this dump under 1 s, and the
 * Node suite opens one store per test file or more.
 *
 * The dump is made by openPgliteStore itself (the real migrations on a fresh database) and kept in the
 * system's temporary folder under a name hashed from every file in supabase/local and supabase/migrations
 * and the PGlite and pgvector versions, so a new or changed migration, or an upgraded PGlite, makes a new one;
 * stores opened from it still run migrate(), which applies whatever the dump lacks. Tests of opening and
 * migrating themselves (server/store/pglite.test.ts, migrate-shared, upgrade) open their stores without it.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPgliteStore } from '../store/pglite.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INPUTS = ['supabase/local', 'supabase/migrations'];
const PACKAGES = ['@electric-sql/pglite', '@electric-sql/pglite-pgvector'];

let template: Promise<Blob> | undefined;

/** The dump, made once per machine and migration set, read once per process. */
export function migratedTemplate(): Promise<Blob> {
  template ??= loadOrMake();
  return template;
}

async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  for (const pkg of PACKAGES) {
    const { version } = JSON.parse(await readFile(path.join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8'));
    hash.update(`${pkg}@${version}\0`);
  }
  for (const dir of INPUTS) {
    for (const file of (await readdir(path.join(ROOT, dir))).filter((f) => f.endsWith('.sql')).sort()) {
      hash.update(`${dir}/${file}\0`);
      hash.update(await readFile(path.join(ROOT, dir, file)));
      hash.update('\0');
    }
  }
  return hash.digest('hex').slice(0, 16);
}

async function loadOrMake(): Promise<Blob> {
  const file = path.join(tmpdir(), `kb-chat-pglite-template-${await templateKey()}.tar`);
  if (existsSync(file)) return new Blob([await readFile(file)]);
  // No answer write key and no console setting: each store sets its own when it opens from the dump.
  const store = await openPgliteStore(null, { answerWriteKey: null });
  const dump = await store.db.dumpDataDir('none');
  await store.close();
  // Two test files may make it at once: each writes its own file and the rename keeps a whole one.
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, new Uint8Array(await dump.arrayBuffer()));
  await rename(partial, file);
  return dump;
}
