/**
 * Which store a Node process opens: PostgreSQL when DATABASE_URL is set (shared by every server on it),
 * else the embedded PGlite database in KB_DATA_DIR (one process). Used by `npm start`, the command-line
 * tools and `npm run migrate`.
 */
import { openPgliteStore } from './pglite.ts';
import { DEFAULT_POOL_SIZE, openPostgresStore } from './postgres.ts';
import type { OpenStore, SqlDb, StoreKeyOptions } from './sql-store.ts';

export interface DatabaseConfig {
  url: string;
  /**
   * KB_DATABASE_POOL: connections this process keeps at most, and how many questions it lets into the
   * database at once (server/http/admission.ts). Default 4: the work is CPU-bound, so all servers' pools
   * together should be about twice the database's cores (4 for one server on 2 cores; two servers on the
   * same database, 2 each) — more only queue inside PostgreSQL and starve the servers' own event loops of
   * the cores (docs/performance.md, "The pool sized to the cores").
   */
  poolSize: number;
}

export function databaseFromEnv(env: Record<string, string | undefined>): DatabaseConfig | null {
  const url = env.DATABASE_URL?.trim();
  if (!url) return null;
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error('DATABASE_URL must be a postgres:// or postgresql:// URL');
  const raw = env.KB_DATABASE_POOL?.trim();
  const poolSize = raw ? Number(raw) : DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 2 || poolSize > 200)
    throw new Error('KB_DATABASE_POOL must be a whole number from 2 to 200');
  return { url, poolSize };
}

export interface NodeStore {
  store: OpenStore<SqlDb>;
  /** Where it is, for messages (the URL without its password). */
  where: string;
  database: DatabaseConfig | null;
}

export async function openNodeStore(
  database: DatabaseConfig | null,
  dataDir: string,
  options: StoreKeyOptions,
): Promise<NodeStore> {
  if (!database) return { store: await openPgliteStore(dataDir, options), where: `KB_DATA_DIR=${dataDir}`, database };
  const store = await openPostgresStore(database.url, { ...options, poolSize: database.poolSize });
  return { store, where: `DATABASE_URL=${redacted(database.url)}`, database };
}

/** The URL with its password replaced, for logs. */
export function redacted(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
