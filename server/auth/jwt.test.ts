/**
 * Token verification, each failure a 401 with nothing persisted: HS256 with the secret; RS256/ES256 from a
 * JWKS URL served over real HTTP; exp, nbf, aud, iss; `alg: none` and algorithm confusion.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../protocol/index.ts';
import { createTestApi, question, TEST_SECRET, type TestApi } from '../testing/api.ts';
import { basis } from '../testing/vectors.ts';
import { verifyAccessToken } from './jwt.ts';

let api: TestApi;
let server: Server;
let jwksUrl: string;
let userId: string;
const ISSUER = 'https://project.supabase.co/auth/v1';
const keys: Record<'ES256' | 'RS256', { privateJwk: JsonWebKey; publicJwk: JsonWebKey }> = {} as never;

beforeAll(async () => {
  for (const [alg, params] of [
    ['ES256', { name: 'ECDSA', namedCurve: 'P-256' }],
    [
      'RS256',
      { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    ],
  ] as const) {
    const pair = (await crypto.subtle.generateKey(params, true, ['sign', 'verify'])) as CryptoKeyPair;
    keys[alg] = {
      privateJwk: { ...(await crypto.subtle.exportKey('jwk', pair.privateKey)), kid: `k-${alg}`, alg } as JsonWebKey,
      publicJwk: {
        ...(await crypto.subtle.exportKey('jwk', pair.publicKey)),
        kid: `k-${alg}`,
        alg,
        use: 'sig',
      } as JsonWebKey,
    };
  }
  server = createServer((_req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ keys: [keys.ES256.publicJwk, keys.RS256.publicJwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth/v1/.well-known/jwks.json`;
  api = await createTestApi({ jwksUrl, jwtIssuer: ISSUER });
  await api.seedKb();
  userId = (await api.signIn()).userId;
});
afterAll(async () => {
  server?.close();
  await api?.close();
});

const now = () => Math.floor(Date.now() / 1000);
const claims = (extra: Record<string, unknown> = {}) => ({
  sub: userId,
  role: 'authenticated',
  aud: 'authenticated',
  iss: ISSUER,
  iat: now(),
  exp: now() + 600,
  ...extra,
});

async function status(token: string): Promise<number> {
  const res = await api.chat(token, question(basis(0)), { headers: { Accept: 'application/json' } });
  if (res.status === 401) expect(((await res.json()) as ErrorBody).error.code).toBe('unauthorized');
  return res.status;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('accepted tokens', () => {
  it('HS256 signed with the JWT secret', async () => {
    expect(await status(await sign(claims(), TEST_SECRET, 'HS256'))).toBe(200);
  });

  it.each(['ES256', 'RS256'] as const)('%s signed with a key published at the JWKS URL', async (alg) => {
    const token = await sign(claims(), keys[alg].privateJwk as never, alg);
    expect(await status(token)).toBe(200);
  });
});

describe('rejected tokens: 401 and nothing persisted', () => {
  const cases: [string, () => Promise<string>][] = [
    ['expired', () => sign(claims({ exp: now() - 10 }), TEST_SECRET, 'HS256')],
    ['without exp (valid forever otherwise)', () => sign(claims({ exp: undefined }), TEST_SECRET, 'HS256')],
    ['ES256 without exp', () => sign(claims({ exp: undefined }), keys.ES256.privateJwk as never, 'ES256')],
    ['not yet valid (nbf)', () => sign(claims({ nbf: now() + 600 }), TEST_SECRET, 'HS256')],
    ['wrong audience', () => sign(claims({ aud: 'someone-else' }), TEST_SECRET, 'HS256')],
    ['wrong issuer', () => sign(claims({ iss: 'https://evil.example/auth/v1' }), TEST_SECRET, 'HS256')],
    ['another secret', () => sign(claims(), 'another-secret-another-secret-123', 'HS256')],
    ['service role instead of a user', () => sign(claims({ role: 'service_role' }), TEST_SECRET, 'HS256')],
    ['alg none', async () => `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims())}.`],
    [
      'algorithm confusion: HS256 keyed with the public JWK',
      () => sign(claims(), JSON.stringify(keys.RS256.publicJwk), 'HS256'),
    ],
    [
      'ES256 with a key that is not in the JWKS',
      async () => {
        const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
          'sign',
        ])) as CryptoKeyPair;
        const jwk = { ...(await crypto.subtle.exportKey('jwk', pair.privateKey)), kid: 'k-ES256', alg: 'ES256' };
        return sign(claims(), jwk as never, 'ES256');
      },
    ],
    ['garbage', async () => 'not.a.jwt'],
  ];

  it.each(cases)('%s', async (_name, make) => {
    const before = (await api.store.db.query('select 1 from chat_messages')).rows.length;
    expect(await status(await make())).toBe(401);
    expect((await api.store.db.query('select 1 from chat_messages')).rows.length).toBe(before);
  });

  it('RS256 is refused when no JWKS URL is configured', async () => {
    const token = await sign(claims(), keys.RS256.privateJwk as never, 'RS256');
    await expect(verifyAccessToken(token, { secret: TEST_SECRET })).rejects.toMatchObject({ status: 401 });
  });
});
