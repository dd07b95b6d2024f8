/**
 * The store on a PostgreSQL server with pgvector (`DATABASE_URL`): the same SQL functions, row-level
 * security and migrations as the embedded store (sql-store.ts), over a pool of connections so that several
 * requests — and several Node servers — use the database at once.
 *
 * The driver is node-postgres (`pg`): its Pool hands out one connection for the length of a transaction,
 * which is what a visitor's call needs (claims and role are set with `set_config(…, true)`, local to that
 * transaction), its parameters are sent as text exactly as PGlite's are (so functions.ts's `::jsonb` and
 * `::vector` casts work unchanged), and it is the most used Postgres client for Node.
 */
import pg from 'pg';
import { migrate } from './migrate.ts';
import type { SqlDb, SqlLocks, SqlQueryable, SqlSession, Unlock } from './sql-db.ts';
import { type OpenStore, type StoreKeyOptions, VISITOR_SETTINGS, withAnswerWriteKey } from './sql-store.ts';

/**
 * KB_DATABASE_POOL when unset: one server on a 2-core database. The work is CPU-bound, so all servers' pools
 * together should be about twice the database's cores; store/open.ts and docs/performance.md ("The pool sized
 * to the cores") give the measurements.
 */
export const DEFAULT_POOL_SIZE = 4;

export interface PostgresDb extends SqlDb, SqlLocks {
  readonly pool: pg.Pool;
}

export type PostgresStore = OpenStore<PostgresDb>;

export interface PostgresStoreOptions extends StoreKeyOptions {
  /** Connections this process keeps at most (KB_DATABASE_POOL, default DEFAULT_POOL_SIZE). */
  poolSize?: number;
}

/** Connects, applies pending migrations (under the advisory lock, migrate.ts) and sets the answer write key. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const db = postgresDb(url, options.poolSize ?? DEFAULT_POOL_SIZE);
  try {
    await refuseSupabaseAuth(db);
    const migrations = await db.withSession((session) => migrate(session));
    return await withAnswerWriteKey(db, migrations, options);
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** Only the migrations (`npm run migrate`): nothing else is written. */
export async function migratePostgres(url: string) {
  const db = postgresDb(url, 1);
  try {
    await refuseSupabaseAuth(db);
    return await db.withSession((session) => migrate(session));
  } finally {
    await db.close();
  }
}

export function postgresDb(
  url: string,
  max: number,
): PostgresDb & {
  withSession<T>(fn: (s: SqlSession) => Promise<T>): Promise<T>;
} {
  // Supabase puts `extensions` on every role's search_path; the same for every connection, set at its start
  // (a startup parameter: no extra round trip, and it holds behind a pooler that keeps sessions apart).
  const pool = new pg.Pool({ connectionString: url, max, options: '-c search_path=public,extensions' });
  // A connection lost while idle in the pool (the database restarted, a proxy closed it) must not crash
  // the process: the pool drops it and the next query opens a new one.
  pool.on('error', () => {});
  const withClient = async <T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      return await fn(client);
    } finally {
      client.release();
    }
  };
  return {
    pool,
    query: (sql, params) => rowsOf(pool, sql, params),
    exec: (sql) => pool.query(sql),
    transaction: (fn) => withClient((client) => inTransaction(client, fn)),
    visitorTransaction: (claims, fn) => withClient((client) => inTransaction(client, fn, visitorBegin(client, claims))),
    withSession: (fn) => withClient((client) => fn(clientSession(client))),
    tryLock: async (name: string): Promise<Unlock | null> => {
      const client = await pool.connect();
      try {
        const { rows } = await client.query<{ ok: boolean }>(
          "select pg_try_advisory_lock(hashtext('kb-chat:' || $1)) as ok",
          [name],
        );
        if (!rows[0]?.ok) {
          client.release();
          return null;
        }
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
      let done = false;
      return async () => {
        if (done) return;
        done = true;
        try {
          await client.query("select pg_advisory_unlock(hashtext('kb-chat:' || $1))", [name]);
          client.release();
        } catch (error) {
          // A connection that cannot unlock is closed instead: its locks end with it.
          client.release(error as Error);
        }
      };
    },
    close: () => pool.end(),
  };
}

/** One pinned connection as a session: its transactions run on it. */
function clientSession(client: pg.PoolClient): SqlSession {
  const q = queryable(client);
  return {
    ...q,
    transaction: (fn) => inTransaction(client, fn),
    visitorTransaction: (claims, fn) => inTransaction(client, fn, visitorBegin(client, claims)),
  };
}

/**
 * `begin` and a visitor's settings as one simple-protocol message: one round trip to the server instead of
 * two (PostgreSQL runs the statements of one message in order, and the `begin` among them opens a
 * transaction that outlasts the message). That protocol takes no parameters, so the claims are quoted by
 * the driver's own literal escaping.
 */
function visitorBegin(client: pg.PoolClient, claims: string): string {
  // A function, not a string, as the replacement: a `$&` or `$'` in the claims must stay as it is.
  return `begin; ${VISITOR_SETTINGS.replace('$1', () => client.escapeLiteral(claims))}`;
}

function queryable(client: pg.PoolClient): SqlQueryable {
  return {
    query: (sql, params) => rowsOf(client, sql, params),
    exec: (sql) => client.query(sql),
  };
}

/** A query's rows, typed by the caller as PGlite's `query<T>` types them. */
// biome-ignore lint/suspicious/noExplicitAny: the caller's row type, as SqlQueryable declares it
function rowsOf<T = any>(on: pg.Pool | pg.PoolClient, sql: string, params?: unknown[]): Promise<{ rows: T[] }> {
  return on.query(sql, params) as unknown as Promise<{ rows: T[] }>;
}

async function inTransaction<T>(
  client: pg.PoolClient,
  fn: (tx: SqlQueryable) => Promise<T>,
  begin = 'begin',
): Promise<T> {
  await client.query(begin);
  try {
    const result = await fn(queryable(client));
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  }
}

/**
 * The local shim (supabase/local) creates its own small `auth` schema for the server's anonymous sign-in;
 * a Supabase project's `auth` schema belongs to Supabase Auth, which the shim must never alter. Supabase
 * projects are served by the Workers + Supabase path (docs/deploy.md).
 */
async function refuseSupabaseAuth(db: SqlQueryable): Promise<void> {
  const { rows } = await db.query<{ gotrue: boolean }>(
    "select to_regclass('auth.schema_migrations') is not null and to_regclass('auth.identities') is not null as gotrue",
  );
  if (rows[0]?.gotrue)
    throw new Error(
      'DATABASE_URL points at a database with Supabase Auth (auth.identities): the Node server keeps its own ' +
        'auth schema and must not share it. Use a database of its own, or the Workers + Supabase deploy.',
    );
}
