/**
 * rate_limit_hit clears windows older than a day as it counts a hit. It runs on every question, so the
 * clearing must read only the expired windows (the index on window_start), not every visitor's window of the
 * last day: on a busy database that sequential scan was the largest cost of a question after the search.
 * On PGlite and on PostgreSQL (KB_TEST_DATABASE_URL, server/testing/pg.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeStores } from '../testing/pg.ts';
import type { OpenStore } from './sql-store.ts';

describeStores('rate-limit windows older than a day', (kind) => {
  let store: OpenStore;
  beforeAll(async () => {
    store = await kind.open();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('are cleared by the next hit, and the current ones kept', async () => {
    const claims = { sub: await store.createAnonymousUser(), role: 'authenticated' };
    const other = await store.createAnonymousUser();
    await store.db.query(
      `insert into rate_limits (user_id, bucket, window_start, hits) values
         ($1, 'api', now() - interval '2 days', 3), ($1, 'api', now() - interval '1 hour', 4)`,
      [other],
    );
    expect((await store.rateLimitHit(claims, 'api', 10, 60)).allowed).toBe(true);
    const { rows } = await store.db.query<{ age: string; hits: number }>(
      `select case when window_start < now() - interval '1 day' then 'old' else 'recent' end as age, hits
         from rate_limits where user_id = $1`,
      [other],
    );
    expect(rows).toEqual([{ age: 'recent', hits: 4 }]);
  });

  it('are found through the index and deleted by key, not by reading every window', async () => {
    // A day of visitors: five thousand current windows; the planner's statistics refreshed.
    await store.db.query(
      `insert into rate_limits (user_id, bucket, window_start, hits)
         select u.id, 'api', date_trunc('minute', now()) - make_interval(secs => g * 15), 1
         from (select id from auth.users order by id limit 1) u, generate_series(1, 5000) g
         on conflict do nothing`,
    );
    await store.db.query('analyze rate_limits');
    // The clearing statement as the function holds it (it has no parameters), planned on its own.
    const { rows: source } = await store.db.query<{ src: string }>(
      `select prosrc as src from pg_proc where proname = 'rate_limit_hit'`,
    );
    const clearing = /delete from rate_limits[^;]*/.exec(source[0]!.src)?.[0];
    expect(clearing).toBeDefined();
    const { rows } = await store.db.query<{ 'QUERY PLAN': string }>(`explain ${clearing}`);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('rate_limits_window_start');
    expect(plan).not.toMatch(/Seq Scan on rate_limits/);
  });
});
