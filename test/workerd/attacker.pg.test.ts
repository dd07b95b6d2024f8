/**
 * The attacker suite (attacker.test.ts: every function and table as an anon-key holder sees them, the
 * bounds of what they may call) on PostgreSQL 15 + pgvector. Needs KB_TEST_DATABASE_URL; skipped without
 * it locally, failed without it in CI (server/testing/pg.ts).
 */
import { it } from 'vitest';
import { POSTGRES_RUNS } from '../../server/testing/pg.ts';
import { runSuiteOn } from './suite-database.ts';

if (POSTGRES_RUNS) {
  runSuiteOn('postgres');
  await import('./attacker.test.ts');
} else {
  it.skip('the attacker suite on PostgreSQL (set KB_TEST_DATABASE_URL: scripts/pg-test-cluster.sh start)', () => {});
}
