/**
 * What the store and the migrations need of a Postgres connection. PGlite has it as is (one connection);
 * postgres.ts gives it to a pool of node-postgres connections.
 */
export interface SqlQueryable {
  // biome-ignore lint/suspicious/noExplicitAny: rows typed by each caller, as the drivers do
  query<T = any>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /** One or more statements without parameters. */
  exec(sql: string): Promise<unknown>;
}

/** Queries and transactions; on a pool, a transaction holds one connection from `begin` to its end. */
export interface SqlSession extends SqlQueryable {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /**
   * `transaction`, run as a visitor: `claims` (JSON) as `request.jwt.claims` and the role `authenticated`,
   * both local to it. Optional: a driver on a network connection sends them with `begin` in one round trip;
   * without it the store sets them with a query of its own.
   */
  visitorTransaction?<T>(claims: string, fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
}

export interface SqlDb extends SqlSession {
  close(): Promise<void>;
}

/** Releases a lock taken by `SqlLocks.tryLock`. */
export type Unlock = () => Promise<void>;

/**
 * Locks across every process on the database (PostgreSQL's session advisory locks, on a connection held
 * until the unlock, so a server that dies lets go with its connection). PGlite has one process and no need.
 */
export interface SqlLocks {
  /** The lock named `name`, or null at once when another session holds it. */
  tryLock(name: string): Promise<Unlock | null>;
}
