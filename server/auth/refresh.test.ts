/**
 * Local refresh tokens as a family (embedded server): each refresh uses one token up and issues the next;
 * presenting a used one again ends the whole family (the thief and the visitor both start over); no family
 * is renewed past 7 days from its sign-in; the route is limited per client network; ended rows are pruned
 * a bounded batch per token issued. Assertions read the rows in auth.refresh_tokens.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnonymousAuth, ErrorBody } from '../../protocol/index.ts';
import { MemoryClientLimiter } from '../http/client-limit.ts';
import { REFRESH_PRUNE_BATCH } from '../store/pglite.ts';
import { createTestApi, type TestApi } from '../testing/api.ts';
import { REFRESH_TTL_SECONDS, SESSION_LIFETIME_SECONDS } from './jwt.ts';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api?.close());

const signIn = async (app = api.app) =>
  (await (await app.request('/api/auth/anonymous', { method: 'POST' })).json()) as AnonymousAuth;
const refresh = (token: string | undefined, app = api.app, headers: Record<string, string> = {}) =>
  app.request('/api/auth/refresh', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ refresh_token: token }),
  });
const hash = (token: string) => createHash('sha256').update(token).digest('hex');

interface TokenRow {
  token_hash: string;
  family_id: string;
  created_at: Date;
  expires_at: Date;
  family_expires_at: Date;
  used_at: Date | null;
}
const row = async (token: string) =>
  (await api.store.db.query<TokenRow>('select * from auth.refresh_tokens where token_hash = $1', [hash(token)]))
    .rows[0];
const family = async (familyId: string) =>
  (await api.store.db.query<TokenRow>('select * from auth.refresh_tokens where family_id = $1', [familyId])).rows;

describe('refresh-token families', () => {
  it('reuse of a used token revokes every token of its family; other families are untouched', async () => {
    const victim = await signIn();
    const bystander = await signIn();
    const stolen = victim.refresh_token!;
    // The thief renews first and holds the family's newest token…
    const thief = (await (await refresh(stolen)).json()) as AnonymousAuth;
    expect(thief.user_id).toBe(victim.user_id);
    const familyId = (await row(stolen))!.family_id;
    expect((await row(thief.refresh_token!))!.family_id).toBe(familyId);
    // …then the visitor presents the same token: refused, and the whole family ends.
    const replay = await refresh(stolen);
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as ErrorBody).error.code).toBe('unauthorized');
    expect(await family(familyId)).toEqual([]);
    expect((await refresh(thief.refresh_token)).status).toBe(401);
    // Another visitor's family goes on.
    expect((await refresh(bystander.refresh_token)).status).toBe(200);
  });

  it('renews for at most 7 days from the sign-in: the end is fixed at sign-in, carried to each token, and ends renewal', async () => {
    const first = await signIn();
    const start = await row(first.refresh_token!);
    const lifetime = start!.family_expires_at.getTime() - start!.created_at.getTime();
    expect(Math.abs(lifetime - SESSION_LIFETIME_SECONDS * 1000)).toBeLessThan(5_000);
    expect(
      Math.abs(start!.expires_at.getTime() - start!.created_at.getTime() - REFRESH_TTL_SECONDS * 1000),
    ).toBeLessThan(5_000);

    const second = (await (await refresh(first.refresh_token)).json()) as AnonymousAuth;
    const next = await row(second.refresh_token!);
    expect(next!.family_expires_at).toEqual(start!.family_expires_at); // renewing does not extend the session

    // Near the end, a new token's own expiry is capped at the family's end.
    await api.store.db.query(
      "update auth.refresh_tokens set family_expires_at = now() + interval '1 hour' where family_id = $1",
      [start!.family_id],
    );
    const third = (await (await refresh(second.refresh_token)).json()) as AnonymousAuth;
    const capped = await row(third.refresh_token!);
    expect(capped!.expires_at.getTime()).toBeLessThanOrEqual(capped!.family_expires_at.getTime());

    // Past the end: an unused, unexpired token of the family renews nothing.
    await api.store.db.query(
      "update auth.refresh_tokens set family_expires_at = now() - interval '1 second' where family_id = $1",
      [start!.family_id],
    );
    expect((await row(third.refresh_token!))!.expires_at.getTime()).toBeGreaterThan(Date.now() - 1000);
    expect((await refresh(third.refresh_token)).status).toBe(401);
  });

  it('refuses an unused token past its own expiry, though its family is still live, and spends nothing', async () => {
    const idle = await signIn();
    const token = idle.refresh_token!;
    const start = await row(token);
    // The tab stayed idle past the token's day; the family's 7 days are far from over.
    await api.store.db.query(
      "update auth.refresh_tokens set expires_at = now() - interval '1 second' where token_hash = $1",
      [hash(token)],
    );
    const late = await refresh(token);
    expect(late.status).toBe(401);
    expect(((await late.json()) as ErrorBody).error.code).toBe('unauthorized');
    const after = await row(token);
    expect(after!.used_at).toBeNull();
    expect(await family(start!.family_id)).toHaveLength(1); // no successor was issued
    // The same token a second before its expiry still renews: the refusal is the expiry, not the token.
    await api.store.db.query(
      "update auth.refresh_tokens set expires_at = now() + interval '1 minute' where token_hash = $1",
      [hash(token)],
    );
    expect((await refresh(token)).status).toBe(200);
  });

  it('limits POST /api/auth/refresh per client network: 429 with Retry-After, before the token is used', async () => {
    const app = api.instance({
      refreshLimiter: new MemoryClientLimiter(3, 60),
      clientIp: (c) => c.req.header('X-Test-Client') ?? null,
    });
    const from = (ip: string) => ({ 'X-Test-Client': ip });
    const statuses: number[] = [];
    for (let i = 1; i <= 3; i++)
      statuses.push((await refresh('made-up-token', app, from(`2001:db8:5:5::${i}`))).status);
    expect(statuses).toEqual([401, 401, 401]);
    const valid = (await signIn()).refresh_token!;
    const limited = await refresh(valid, app, from('2001:db8:5:5::99'));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(((await limited.json()) as ErrorBody).error.code).toBe('rate_limited');
    expect((await row(valid))!.used_at).toBeNull();
    // Another network is not affected, and the token was not spent by the refused request.
    expect((await refresh(valid, app, from('2001:db8:5:6::1'))).status).toBe(200);
  });

  it(`prunes ended rows, at most ${REFRESH_PRUNE_BATCH} per token issued, and keeps used tokens of live families`, async () => {
    const live = await signIn();
    const renewed = (await (await refresh(live.refresh_token)).json()) as AnonymousAuth;
    const userId = live.user_id;
    // 150 ended rows: families past their end, and unused tokens past their own expiry.
    await api.store.db.query(
      `insert into auth.refresh_tokens (token_hash, user_id, family_id, family_expires_at, expires_at, used_at)
       select 'ended-family-' || i, $1::uuid, gen_random_uuid(), now() - interval '1 minute', now() - interval '1 day', case when i % 2 = 0 then now() - interval '2 days' end
       from generate_series(1, 100) as i
       union all
       select 'idle-' || i, $1::uuid, gen_random_uuid(), now() + interval '3 days', now() - interval '1 second', null
       from generate_series(1, 50) as i`,
      [userId],
    );
    const ended = async () =>
      Number(
        (
          await api.store.db.query<{ n: string }>(
            "select count(*) as n from auth.refresh_tokens where token_hash like 'ended-family-%' or token_hash like 'idle-%'",
          )
        ).rows[0]!.n,
      );
    expect(await ended()).toBe(150);
    await signIn(); // one token issued: one bounded batch
    expect(await ended()).toBe(150 - REFRESH_PRUNE_BATCH);
    await refresh(renewed.refresh_token); // a refresh issues a token too
    expect(await ended()).toBe(0);
    // The used token of the live family is kept (its reuse must still be recognised).
    expect((await row(live.refresh_token!))!.used_at).not.toBeNull();
  });
});
