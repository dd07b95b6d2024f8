/**
 * `npm run schema`: regenerates supabase/schema.sql and the generated part of docs/database.md from the
 * migrations (scripts/schema/generate.ts). supabase/schema.test.ts fails while either file is stale.
 */
import { writeFileSync } from 'node:fs';
import { DATABASE_MD, generate, SCHEMA_SQL } from './schema/generate.ts';

const { schemaSql, databaseMd } = await generate();
writeFileSync(SCHEMA_SQL, schemaSql);
writeFileSync(DATABASE_MD, databaseMd);
console.log(`wrote ${SCHEMA_SQL} (${schemaSql.split('\n').length} lines) and ${DATABASE_MD}`);
