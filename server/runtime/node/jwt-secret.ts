/**
 * The embedded server's HS256 secret when KB_JWT_SECRET is unset: a random one kept beside the data, so
 * tokens survive restarts — and so `npm run console -- link` (another process, which must not open the
 * database the server holds) signs links the running server accepts.
 */
import { join } from 'node:path';
import { strongSecret } from '../../config/index.ts';
import { localSecret } from './local-secret.ts';

export async function localJwtSecret(dataDir: string): Promise<string> {
  // A file someone wrote by hand is held to the same minimum as KB_JWT_SECRET.
  return strongSecret(await localSecret(dataDir, 'kb-chat-jwt-secret'), join(dataDir, 'kb-chat-jwt-secret'))!;
}
