/**
 * A random secret kept beside the embedded database (KB_DATA_DIR), created on first use: it survives
 * restarts, and another process (`npm run console -- link`) reads the same one without opening the database.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export async function localSecret(dataDir: string, fileName: string): Promise<string> {
  const file = join(dataDir, fileName);
  const existing = await readFile(file, 'utf8').catch(() => '');
  if (existing.trim()) return existing.trim();
  await mkdir(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  // 'wx': if another process wrote one meanwhile, keep (and read) that one.
  await writeFile(file, secret, { mode: 0o600, flag: 'wx' }).catch(() => {});
  return (await readFile(file, 'utf8')).trim();
}
