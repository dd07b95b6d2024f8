/**
 * The embedded store: PGlite + pgvector, with the same migrations, SQL functions and row-level security as
 * Supabase. Visitor calls run the way PostgREST runs them: inside one transaction, `request.jwt.claims` set
 * and `set local role authenticated`, so the policies are enforced by Postgres itself.
 */
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { migrate, type MigrationResult } from './migrate.ts';
import {
  StoreError,
  type BeginTurn,
  type ChatStore,
  type ChunkMatch,
  type DocumentState,
  type FinishTurn,
  type IngestDocument,
  type IngestStore,
  type JwtClaims,
  type KbStats,
  type LocalAuthStore,
} from './types.ts';

export interface PgliteStore extends ChatStore, LocalAuthStore, IngestStore {
  readonly db: PGlite;
  readonly migrations: MigrationResult;
  close(): Promise<void>;
}

/**
 * Opens (creating when needed) the database in `dataDir`, or in memory when `dataDir` is null, and
 * applies pending migrations.
 */
export async function openPgliteStore(dataDir: string | null): Promise<PgliteStore> {
  const db = await PGlite.create(dataDir ?? undefined, { extensions: { vector } });
  // Supabase puts `extensions` on every role's search_path; do the same for this (single) connection.
  await db.exec('set search_path = public, extensions');
  const migrations = await migrate(db);
  return new Store(db, migrations);
}

class Store implements PgliteStore {
  constructor(
    readonly db: PGlite,
    readonly migrations: MigrationResult,
  ) {}

  async close(): Promise<void> {
    await this.db.close();
  }

  async kbStats(): Promise<KbStats> {
    const { rows } = await this.run((q) => q.query<Record<keyof KbStats, string>>('select * from kb_stats()'));
    const row = rows[0]!;
    return {
      documents: Number(row.documents),
      ready_documents: Number(row.ready_documents),
      chunks: Number(row.chunks),
      embeddings: Number(row.embeddings),
    };
  }

  async matchChunks(claims: JwtClaims, embedding: number[], threshold: number, count: number): Promise<ChunkMatch[]> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<ChunkMatch>('select * from match_chunks($1::vector, $2, $3)', [
        JSON.stringify(embedding),
        threshold,
        count,
      ]),
    );
    return rows;
  }

  async beginTurn(claims: JwtClaims, turn: BeginTurn): Promise<string> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<{ id: string }>('select chat_begin_turn($1, $2, $3, $4) as id', [
        turn.session_id ?? null,
        turn.message_id,
        turn.content,
        turn.title,
      ]),
    );
    return rows[0]!.id;
  }

  async finishTurn(claims: JwtClaims, turn: FinishTurn): Promise<string> {
    const { rows } = await this.asVisitor(claims, (tx) =>
      tx.query<{ id: string }>('select chat_finish_turn($1, $2, $3, $4, $5) as id', [
        turn.session_id,
        turn.reply_to,
        turn.content,
        turn.citations === null ? null : JSON.stringify(turn.citations),
        JSON.stringify(turn.meta),
      ]),
    );
    return rows[0]!.id;
  }

  async createAnonymousUser(): Promise<string> {
    const { rows } = await this.run((q) =>
      q.query<{ id: string }>('insert into auth.users (is_anonymous) values (true) returning id'),
    );
    return rows[0]!.id;
  }

  async documentState(source: string, model: string): Promise<DocumentState | null> {
    const { rows } = await this.run((q) =>
      q.query<DocumentState & { stale_embeddings: string }>('select * from document_state($1, $2)', [source, model]),
    );
    const row = rows[0];
    return row ? { ...row, stale_embeddings: Number(row.stale_embeddings) } : null;
  }

  async ingestDocument(doc: IngestDocument): Promise<string> {
    const { rows } = await this.run((q) =>
      q.query<{ id: string }>('select ingest_document($1, $2, $3, $4, $5, $6) as id', [
        doc.source,
        doc.name,
        JSON.stringify(doc.meta),
        doc.checksum,
        doc.model,
        JSON.stringify(doc.chunks),
      ]),
    );
    return rows[0]!.id;
  }

  /** Runs as the visitor: one transaction, claims set, role `authenticated` — what PostgREST does. */
  private asVisitor<T>(claims: JwtClaims, fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.run((db) =>
      db.transaction(async (tx) => {
        await tx.query("select set_config('request.jwt.claims', $1, true)", [JSON.stringify(claims)]);
        await tx.exec('set local role authenticated');
        return fn(tx);
      }),
    );
  }

  /** Maps Postgres errors to the StoreError kinds the API understands. */
  private async run<T>(fn: (db: PGlite) => Promise<T>): Promise<T> {
    try {
      return await fn(this.db);
    } catch (error) {
      throw toStoreError(error);
    }
  }
}

function toStoreError(error: unknown): StoreError {
  const code = (error as { code?: string } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // 23505 unique_violation; 42501 insufficient_privilege / row-level security; 23503 foreign key (e.g. a
  // token for a user that does not exist).
  if (code === '23505') return new StoreError('conflict', message, { cause: error });
  if (code === '42501' || code === '23503') return new StoreError('forbidden', message, { cause: error });
  return new StoreError('unavailable', message, { cause: error });
}
