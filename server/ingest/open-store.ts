/**
 * The store the command-line tools (ingest, docs, reindex) write to: Supabase when SUPABASE_URL and
 * SUPABASE_SERVICE_ROLE_KEY are set (the service role may call the ingestion functions), else the
 * PostgreSQL database of DATABASE_URL, else the embedded database in KB_DATA_DIR.
 */
import ws from 'ws';
import { databaseFromEnv, openNodeStore } from '../store/open.ts';
import { createSupabaseIngestStore } from '../store/supabase.ts';
import type { IngestStore } from '../store/types.ts';

export interface CliStore {
  store: IngestStore;
  /** Where it writes, for messages: "Supabase (https://…)", "DATABASE_URL=postgres://…" or "KB_DATA_DIR=.kb-data". */
  where: string;
  close(): Promise<void>;
}

export async function openCliStore(env: Record<string, string | undefined>, dataDir: string): Promise<CliStore> {
  const url = env.SUPABASE_URL?.trim();
  const key = env.SUPABASE_SERVICE_ROLE_KEY?.trim();
  if (url && key) {
    return {
      store: createSupabaseIngestStore({ url, key, realtimeTransport: ws }),
      where: `Supabase (${url})`,
      close: async () => {},
    };
  }
  if (url && !key)
    throw new Error('SUPABASE_URL is set but SUPABASE_SERVICE_ROLE_KEY is not: ingestion needs the service-role key.');
  // The CLI writes documents, never answers: it leaves the server's answer write key as it is.
  const { store, where } = await openNodeStore(databaseFromEnv(env), dataDir, { answerWriteKey: null });
  return { store, where, close: () => store.close() };
}
