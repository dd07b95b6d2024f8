import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPostgresStore, POSTGRES_RUNS } from '../testing/pg.ts';
import { inlineParams, type PostgresStore } from './postgres.ts';

// A visitor's one call is sent as one message with its parameters quoted as literals (postgres.ts,
// visitorQuery): each `$n` becomes its value's literal, a null becomes `null`, and a value the simple
// protocol cannot carry (a NUL character) sends the call the parameterised way instead.
describe('inlineParams', () => {
  const client = { escapeLiteral: pg.escapeLiteral };
  it('quotes every parameter where its placeholder is, with casts kept', () => {
    // pg's escaping writes a string with a backslash as ` E'…'`, a space before it.
    expect(
      inlineParams(client, 'select * from f($1, $2::jsonb, $3, $10)', [
        "it's",
        '{"a":"\\"}',
        null,
        ...Array(6).fill(1),
        7,
      ]),
    ).toBe(`select * from f('it''s',  E'{"a":"\\\\"}'::jsonb, null, '7')`);
  });
  it('quotes as the driver does, with or without characters to escape', () => {
    for (const text of ['[0.1,-0.2]', "a'b", 'a\\b', "'\\'", '', 'plain words'])
      expect(inlineParams(client, 'select $1', [text])).toBe(`select ${pg.escapeLiteral(text)}`);
  });
  it('gives up on a NUL character', () => {
    expect(inlineParams(client, 'select f($1)', ['a\0b'])).toBeNull();
  });
});

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

  it('runs one call as the visitor in one message, its literals arriving unchanged, and rolls back a failure', async () => {
    const claims = JSON.stringify({ sub: '00000000-0000-4000-8000-000000000002', role: 'authenticated' });
    const text = "it's a \\ back'slash; $& $' $1 ''); drop table kb_chunks; --";
    const { rows } = await store.db.visitorQuery!<{ t: string; n: number; role: string; sub: string }>(
      claims,
      'select $1::text as t, $2::int as n, current_user as role, auth.uid()::text as sub',
      [text, 8],
    );
    expect(rows).toEqual([{ t: text, n: 8, role: 'authenticated', sub: '00000000-0000-4000-8000-000000000002' }]);
    // A NUL character goes the parameterised way, and PostgreSQL refuses it there as it always did.
    await expect(store.db.visitorQuery!(claims, 'select $1::text as t', ['a\0b'])).rejects.toThrow();
    await expect(store.db.visitorQuery!(claims, 'select 1/$1::int as v', [0])).rejects.toThrow(/division by zero/);
    const after = await store.db.query<{ role: string; claims: string | null }>(
      "select current_user as role, nullif(current_setting('request.jwt.claims', true), '') as claims",
    );
    expect(after.rows[0]).toEqual({ role: expect.not.stringMatching(/^authenticated$/), claims: null });
  });
});
