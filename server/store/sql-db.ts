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
}

export interface SqlDb extends SqlSession {
  close(): Promise<void>;
}
