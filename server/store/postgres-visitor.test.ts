import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPostgresStore, POSTGRES_RUNS } from '../testing/pg.ts';
import type { PostgresStore } from './postgres.ts';

// A visitor's transaction on PostgreSQL begins, sets the claims and takes the role in one simple-protocol
// message, with the claims quoted as a literal (postgres.ts, visitorBegin): whatever a claim holds must
// arrive unchanged, and the role and claims must end with the transaction.
(POSTGRES_RUNS ? describe : describe.skip)('a visitor transaction on PostgreSQL', () => {
  let store: PostgresStore;
  beforeAll(async () => {
    store = await openTestPostgresStore();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('carries claims with quotes, backslashes and $ patterns unchanged, as role authenticated, for that transaction only', async () => {
    const claims = JSON.stringify({
      sub: '00000000-0000-4000-8000-000000000001',
      role: 'authenticated',
      note: "it's a \\ back'slash; $& $' $1 ''); drop table kb_chunks; --",
    });
    const seen = await store.db.visitorTransaction!(claims, async (tx) => {
      const { rows } = await tx.query<{ claims: string; role: string; sub: string }>(
        "select current_setting('request.jwt.claims') as claims, current_user as role, auth.uid()::text as sub",
      );
      return rows[0]!;
    });
    expect(JSON.parse(seen.claims)).toEqual(JSON.parse(claims));
    expect(seen.role).toBe('authenticated');
    expect(seen.sub).toBe('00000000-0000-4000-8000-000000000001');
    // The next transaction on the pool is the owner's again, with no claims.
    const after = await store.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ claims: string | null; role: string }>(
        "select nullif(current_setting('request.jwt.claims', true), '') as claims, current_user as role",
      );
      return rows[0]!;
    });
    expect(after.claims).toBeNull();
    expect(after.role).not.toBe('authenticated');
    // The table the claims named is still there: they were data, not SQL.
    expect((await store.db.query('select count(*)::int as n from kb_chunks')).rows[0].n).toBeTypeOf('number');
  });

  it('rolls back on failure and leaves the connection usable', async () => {
    await expect(
      store.db.visitorTransaction!('{"sub":"x","role":"authenticated"}', (tx) => tx.query('select 1/0')),
    ).rejects.toThrow();
    expect((await store.db.query('select 1 as one')).rows[0].one).toBe(1);
  });
});
