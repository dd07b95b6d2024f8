/**
 * The schema suite (schema.test.ts: every migration applied in order, each function with the argument
 * names the stores send and its grants per role, row-level security on every table) on PostgreSQL 15 +
 * pgvector. Needs KB_TEST_DATABASE_URL; skipped without it locally, failed without it in CI
 * (server/testing/pg.ts).
 */
import { it } from 'vitest';
import { POSTGRES_RUNS } from '../../server/testing/pg.ts';
import { runSuiteOn } from './suite-database.ts';

if (POSTGRES_RUNS) {
  runSuiteOn('postgres');
  await import('./schema.test.ts');
} else {
  it.skip('the schema suite on PostgreSQL (set KB_TEST_DATABASE_URL: scripts/pg-test-cluster.sh start)', () => {});
}
