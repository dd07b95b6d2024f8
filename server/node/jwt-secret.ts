/**
 * The embedded server's HS256 secret when KB_JWT_SECRET is unset: a random one kept beside the data, so
 * tokens survive restarts — and so `npm run admin -- link` (another process, which must not open the
 * database the server holds) signs links the running server accepts.
 */
import { localSecret } from './local-secret.ts';

export function localJwtSecret(dataDir: string): Promise<string> {
  return localSecret(dataDir, 'kb-chat-jwt-secret');
}
