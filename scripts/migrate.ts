/**
 * `npm run migrate`: applies the pending migrations of supabase/migrations to the database of DATABASE_URL
 * (or, without it, to the embedded one in KB_DATA_DIR) and says which. `npm start` does the same on every
 * start; this is for a deploy step that migrates once before new servers start. Safe to run on several
 * machines at once: the run holds an advisory lock (server/store/migrate.ts). Exits 1 on a database migrated
 * by a newer release.
 */
import { readConfig } from '../server/config/index.ts';
import { openPgliteStore } from '../server/store/pglite.ts';
import { databaseFromEnv, redacted } from '../server/store/open.ts';
import { migratePostgres } from '../server/store/postgres.ts';

const database = databaseFromEnv(process.env);
try {
  let result: { applied: string[]; skipped: string[] };
  if (database) {
    result = await migratePostgres(database.url);
  } else {
    // Opening the embedded database migrates it; the CLI leaves the answer write key alone.
    const store = await openPgliteStore(readConfig(process.env).dataDir, { answerWriteKey: null });
    result = store.migrations;
    await store.close();
  }
  const where = database ? redacted(database.url) : `KB_DATA_DIR=${readConfig(process.env).dataDir}`;
  for (const file of result.applied) console.log(`applied ${file}`);
  console.log(`${where}: ${result.applied.length} applied, ${result.skipped.length} already applied.`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
