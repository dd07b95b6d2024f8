/**
 * The embedded server's HS256 secret when KB_JWT_SECRET is unset: a random one kept beside the data, so
 * tokens survive restarts — and so `npm run admin -- link` (another process, which must not open the
 * database the server holds) signs links the running server accepts.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { strongSecret } from '../config/index.ts';

export async function localJwtSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'kb-chat-jwt-secret');
  const existing = await readFile(file, 'utf8').catch(() => '');
  // A file someone wrote by hand is held to the same minimum as KB_JWT_SECRET.
  if (existing.trim()) return strongSecret(existing.trim(), file)!;
  await mkdir(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  // 'wx': if the server wrote one meanwhile, keep (and read) that one.
  await writeFile(file, secret, { mode: 0o600, flag: 'wx' }).catch(() => {});
  return (await readFile(file, 'utf8')).trim();
}
