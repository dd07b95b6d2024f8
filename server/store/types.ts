/**
 * The database contract as the API sees it. Every method is one SQL function of supabase/migrations, so
 * the embedded store (PGlite) and the Supabase store (supabase-js `rpc()`) differ only in transport.
 * Methods that take `claims` run as that visitor, exactly as PostgREST would: role `authenticated` and
 * `request.jwt.claims` set, so row-level security applies.
 */
import type { Citation } from '../../protocol/index.ts';

/**
 * The bearer token the claims were verified from. A store that forwards the visitor to the database as
 * PostgREST expects (the Supabase store) sends this token unchanged; the embedded store only needs the
 * claims. A symbol, so it never becomes a claim: `JSON.stringify(claims)` and spreads skip it.
 */
export const ACCESS_TOKEN: unique symbol = Symbol('kb-chat.access-token');

/** The verified JWT payload of the visitor (Supabase's claims: sub, role, aud, exp, …). */
export interface JwtClaims {
  sub: string;
  role: string;
  aud?: string | string[];
  exp?: number;
  iat?: number;
  [claim: string]: unknown;
  [ACCESS_TOKEN]?: string;
}

export interface ChunkMeta {
  section?: string | null;
  heading_path?: string[];
  page?: number | null;
  anchor?: string | null;
  url?: string | null;
  [key: string]: unknown;
}

/** One row of `match_chunks`. */
export interface ChunkMatch {
  chunk_id: string;
  content: string;
  meta: ChunkMeta;
  document_id: string;
  document_title: string;
  document_url: string | null;
  similarity: number;
}

/** One row of `kb_stats`. */
export interface KbStats {
  documents: number;
  ready_documents: number;
  chunks: number;
  embeddings: number;
}

export interface BeginTurn {
  session_id?: string;
  message_id: string;
  content: string;
  /** Title for a session created by this turn (ignored when the session exists). */
  title: string;
}

export interface FinishTurn {
  session_id: string;
  reply_to: string;
  content: string;
  citations: Citation[] | null;
  meta: Record<string, unknown>;
}

export interface ChatStore {
  kbStats(): Promise<KbStats>;
  matchChunks(claims: JwtClaims, embedding: number[], threshold: number, count: number): Promise<ChunkMatch[]>;
  /** Returns the session id (created when needed). */
  beginTurn(claims: JwtClaims, turn: BeginTurn): Promise<string>;
  /** Returns the assistant message id. */
  finishTurn(claims: JwtClaims, turn: FinishTurn): Promise<string>;
}

/** Local mode only: the stand-in for Supabase Auth's anonymous sign-in creates the auth.users row. */
export interface LocalAuthStore {
  createAnonymousUser(): Promise<string>;
}

export interface DocumentState {
  document_id: string;
  status: string;
  checksum: string | null;
  stale_embeddings: number;
}

export interface IngestChunk {
  content: string;
  meta: ChunkMeta;
  embedding: number[];
}

export interface IngestDocument {
  source: string;
  name: string;
  meta: Record<string, unknown>;
  checksum: string;
  model: string;
  chunks: IngestChunk[];
}

/** What the ingestion CLI writes with (service role). */
export interface IngestStore {
  documentState(source: string, model: string): Promise<DocumentState | null>;
  /** Replaces the document and all its chunks atomically; returns the document id. */
  ingestDocument(doc: IngestDocument): Promise<string>;
}

/**
 * A database failure the API can explain: `conflict` (a unique key, e.g. a reused message id),
 * `forbidden` (row-level security refused the write, e.g. somebody else's session id),
 * `unavailable` (the database could not be reached or failed).
 */
export class StoreError extends Error {
  constructor(
    readonly kind: 'conflict' | 'forbidden' | 'unavailable',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}
