/**
 * A random secret kept beside the embedded database (KB_DATA_DIR), created on first use: it survives
 * restarts, and another process (`npm run console -- link`) reads the same one without opening the database.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ownDataDir } from '../../store/pglite-data-dir.ts';

export async function localSecret(dataDir: string, fileName: string): Promise<string> {
  const file = join(dataDir, fileName);
  const existing = await readFile(file, 'utf8').catch(() => '');
  if (existing.trim()) return existing.trim();
  // Owner-only, like everything the embedded database writes there (the secret is read before it opens).
  ownDataDir(dataDir);
  const secret = randomBytes(32).toString('hex');
  // 'wx': if another process wrote one meanwhile, keep (and read) that one.
  await writeFile(file, secret, { mode: 0o600, flag: 'wx' }).catch(() => {});
  return (await readFile(file, 'utf8')).trim();
}
