/**
 * The rate limit is counted in the database, so it holds across server instances: two app
 * instances over one PGlite database, 25 requests from one visitor → exactly 20 pass.
 */
import { describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../protocol/index.ts';
import { question, useTestApi } from '../testing/api.ts';
import { basis } from '../testing/vectors.ts';

const api = useTestApi({ seed: true });

describe('rate limit across instances', () => {
  it('lets exactly 20 of 25 requests through, split over two instances', async () => {
    const one = api().instance();
    const two = api().instance();
    const { token } = await api().signIn(one);
    const responses = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        api().chat(token, question(basis(0)), { headers: { Accept: 'application/json' } }, i % 2 ? one : two),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    // Refused requests wrote nothing.
    const { rows } = await api().store.db.query("select 1 from chat_messages where role = 'user'");
    expect(rows).toHaveLength(20);
  });

  it('answers 429 with a friendly message, Retry-After and the X-RateLimit headers', async () => {
    const tight = api().instance({ rateLimit: { limit: 2, windowSeconds: 3600 } });
    const { token } = await api().signIn(tight);
    const ok = await api().chat(token, question(basis(0)), { headers: { Accept: 'application/json' } }, tight);
    expect(ok.headers.get('X-RateLimit-Limit')).toBe('2');
    expect(ok.headers.get('X-RateLimit-Remaining')).toBe('1');
    const reset = Number(ok.headers.get('X-RateLimit-Reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 3600);

    await api().chat(token, question(basis(0)), { headers: { Accept: 'application/json' } }, tight);
    const limited = await api().chat(token, question(basis(0)), {}, tight);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.headers.get('X-RateLimit-Remaining')).toBe('0');
    const body = (await limited.json()) as ErrorBody;
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.message).toMatch(/wait \d+ seconds/);
  });

  it('carries the headers on error responses too, counts no invalid request, and counts visitors separately', async () => {
    const tight = api().instance({ rateLimit: { limit: 1, windowSeconds: 3600 } });
    const alice = await api().signIn(tight);
    const bob = await api().signIn(tight);
    // Rejected before the limiter: an invalid body costs no budget (and no database work).
    const invalid = await api().chat(alice.token, { message: '' }, {}, tight);
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('X-RateLimit-Remaining')).toBeNull();
    const served = await api().chat(
      alice.token,
      question(basis(0)),
      { headers: { Accept: 'application/json' } },
      tight,
    );
    expect(served.status).toBe(200);
    expect(served.headers.get('X-RateLimit-Remaining')).toBe('0');
    const limited = await api().chat(alice.token, question(basis(0)), {}, tight);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('X-RateLimit-Remaining')).toBe('0');
    const bobs = await api().chat(bob.token, question(basis(0)), { headers: { Accept: 'application/json' } }, tight);
    expect(bobs.status).toBe(200);
  });
});
