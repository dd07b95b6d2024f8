/**
 * `EXPLAIN (ANALYZE, BUFFERS)` of every statement search_chunks runs, as the database runs it. The function
 * is PL/pgSQL, which EXPLAIN shows as one opaque call, so this uses Postgres' auto_explain with nested
 * statements on and its log level lowered to NOTICE: each statement's plan arrives as a notice while a
 * real `select * from search_chunks(…)` executes. PGlite ships auto_explain as a contrib extension; it is
 * loaded only here, never by the server.
 */
import { PGlite } from '@electric-sql/pglite';
import { auto_explain } from '@electric-sql/pglite/contrib/auto_explain';
import { vector } from '@electric-sql/pglite-pgvector';

export interface SearchArgs {
  embedding: number[] | null;
  text: string | null;
  matchCount: number;
  mode: 'hybrid' | 'vector' | 'lexical';
  filters?: Record<string, unknown>;
  candidates?: number;
}

/** Opens `dataDir` (nothing else may have it open), explains one search per `args`, closes it. */
export async function explainSearches(dataDir: string, searches: SearchArgs[]): Promise<string[]> {
  const db = await PGlite.create(dataDir, { extensions: { vector, auto_explain } });
  try {
    await db.exec(`
      set search_path = public, extensions;
      load 'auto_explain';
      set auto_explain.log_min_duration = 0;
      set auto_explain.log_analyze = on;
      set auto_explain.log_buffers = on;
      set auto_explain.log_timing = on;
      set auto_explain.log_nested_statements = on;
      set auto_explain.log_level = notice;
      set client_min_messages = notice;`);
    const out: string[] = [];
    for (const args of searches) {
      // Once to warm the cache and the plans, as a running server would have them; the second run is shown.
      await run(db, args, () => {});
      const plans: string[] = [];
      await run(db, args, (message) => plans.push(message));
      out.push(plans.join('\n\n'));
    }
    return out;
  } finally {
    await db.close();
  }
}

function run(db: PGlite, args: SearchArgs, onNotice: (message: string) => void) {
  return db.query(
    'select * from search_chunks($1::vector, $2, $3, $4, $5, $6)',
    [
      args.embedding ? JSON.stringify(args.embedding) : null,
      args.text,
      args.matchCount,
      args.mode,
      JSON.stringify(args.filters ?? {}),
      args.candidates ?? 50,
    ],
    { onNotice: (notice) => onNotice(notice.message ?? '') },
  );
}
