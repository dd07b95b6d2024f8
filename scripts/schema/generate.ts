/**
 * `npm run schema`'s two files, built from one database: supabase/schema.sql (the schema after every
 * migration) and the generated part of docs/database.md (one entry per SQL function). The database is the
 * embedded store's, opened in memory, so the migrations run exactly as the server runs them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SUPABASE_DIR } from '../../server/store/migrate.ts';
import { openPgliteStore } from '../../server/store/pglite.ts';
import { renderFunctionDocs, splitDoc } from './database-doc.ts';
import { dumpSchema, functionFacts } from './dump.ts';
import { readMigrations } from './migrations.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
export const SCHEMA_SQL = join(ROOT, 'supabase/schema.sql');
export const DATABASE_MD = join(ROOT, 'docs/database.md');
export const REGENERATE = 'npm run schema';

export interface Generated {
  schemaSql: string;
  databaseMd: string;
}

/** Both files as they should be now; `currentDoc` supplies docs/database.md's hand-written top. */
export async function generate(currentDoc = readFileSync(DATABASE_MD, 'utf8')): Promise<Generated> {
  // No answer write key: this database stores nothing, and its key is not written into the schema.
  const store = await openPgliteStore(null, { answerWriteKey: null });
  try {
    const migrations = readMigrations(join(SUPABASE_DIR, 'migrations'));
    const last = migrations.migrations.at(-1) ?? '(none)';
    const header = [
      '-- supabase/schema.sql: GENERATED, do not edit.',
      `-- Regenerate with \`${REGENERATE}\` (scripts/schema.ts): every migration of supabase/migrations applied to an`,
      '-- empty embedded database (PGlite, as the server runs them), then its schema public dumped in a stable order.',
      '-- To change the database, add a NEW migration (never edit one that has shipped) and regenerate.',
      `-- ${migrations.migrations.length} migrations, the last ${last}. What each function is for, and who may call it: docs/database.md.`,
    ].join('\n');
    const schemaSql = `${header}\n\n${await dumpSchema(store.db)}`;
    const { top } = splitDoc(currentDoc);
    const databaseMd = `${top}${renderFunctionDocs(await functionFacts(store.db), migrations)}`;
    return { schemaSql, databaseMd };
  } finally {
    await store.close();
  }
}
