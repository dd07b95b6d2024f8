/**
 * The one-time sign-in link is one-time however it is spelled. An HS256 signature is 32 bytes: 43 base64url
 * characters whose last one carries 4 bits of the signature and 2 spare bits the decoder ignores, and the
 * decoder also accepts a trailing `=`. So one signed link has 4 × 2 = 8 spellings that all verify.
 */
import { verify } from 'hono/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, TEST_SECRET, type TestApi } from '../testing/api.ts';
import { createLinkToken } from './session.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Every spelling of `token`'s signature: the 4 values of the last character's spare bits, each with and without `=`. */
function reencodings(token: string): string[] {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  expect(signature).toHaveLength(43);
  const last = ALPHABET.indexOf(signature.at(-1)!);
  const spellings: string[] = [];
  for (let spare = 0; spare < 4; spare++) {
    const body = `${signature.slice(0, -1)}${ALPHABET[(last & ~3) | spare]}`;
    for (const padding of ['', '=']) spellings.push(`${header}.${payload}.${body}${padding}`);
  }
  return spellings;
}

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api?.close());

const exchange = (link_token: string) =>
  api.app.request('/api/admin/session', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ link_token }) });

describe('POST /api/admin/session: a link signs in once, whichever of its spellings is used', () => {
  it('has 8 spellings that all verify (so the test below is not vacuous)', async () => {
    const link = await createLinkToken(TEST_SECRET);
    const spellings = reencodings(link);
    expect(new Set(spellings).size).toBe(8);
    expect(spellings).toContain(link);
    for (const spelling of spellings) await expect(verify(spelling, TEST_SECRET, { alg: 'HS256', aud: 'kb-chat-admin-link' })).resolves.toBeTruthy();
  });

  it('the first use signs in; then all 8 spellings of that link are refused', async () => {
    const link = await createLinkToken(TEST_SECRET);
    const first = await exchange(link);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { access_token: string }).access_token).toBeTruthy();
    const statuses = [];
    for (const spelling of reencodings(link)) statuses.push((await exchange(spelling)).status);
    expect(statuses).toEqual(Array(8).fill(401));
  });

  it('a re-spelled link used first uses up the original too', async () => {
    const link = await createLinkToken(TEST_SECRET);
    const padded = `${link}=`;
    expect((await exchange(padded)).status).toBe(200);
    expect((await exchange(link)).status).toBe(401);
    const { rows } = await api.store.db.query<{ jti: string }>('select jti from auth.admin_link_uses');
    const { jti } = JSON.parse(Buffer.from(link.split('.')[1]!, 'base64url').toString()) as { jti: string };
    expect(rows.map((r) => r.jti)).toContain(jti);
  });
});
