/**
 * `--allow-private` names its hosts: the private network is open to the hosts the operator gave, and a
 * redirect from one of them to any other internal host, to link-local or to a metadata address is refused.
 * Real HTTP servers on loopback (127.0.0.1, 127.0.0.2 and ::1), nothing else.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { hostKey, privateNetworkAddresses } from './address-policy.ts';
import { createFetchGuard, CrawlRefusal, type FetchGuard } from './guarded-fetch.ts';

const open: Server[] = [];
const guards: FetchGuard[] = [];
afterEach(async () => {
  await Promise.all(guards.splice(0).map((g) => g.close()));
  await Promise.all(open.splice(0).map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections())));
});

async function serve(handler: RequestListener, host: string): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => (hits.push(req.url ?? ''), handler(req, res)));
  open.push(server);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  return { port: (server.address() as AddressInfo).port, hits };
}
const guard = (...args: Parameters<typeof createFetchGuard>) => {
  const created = createFetchGuard(...args);
  guards.push(created);
  return created;
};
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof CrawlRefusal ? error.message : `not a refusal: ${String(error)}`),
  );
const redirectTo = (location: string) => serve((_, res) => res.writeHead(302, { location }).end(), '127.0.0.1');

describe('--allow-private with named hosts', () => {
  it('refuses a redirect from the named 127.0.0.1 to [::1], another loopback host or a private name', async () => {
    const inside = await serve((_, res) => res.end('inside'), '::1');
    const other = await serve((_, res) => res.end('other'), '127.0.0.2');
    for (const target of [
      `http://[::1]:${inside.port}/`,
      `http://127.0.0.2:${other.port}/`,
      `http://intranet.test:${other.port}/`,
    ]) {
      const named = await redirectTo(target);
      const g = guard({
        allowPrivate: true,
        privateHosts: ['127.0.0.1'],
        resolve: async (host) => (host === 'intranet.test' ? ['127.0.0.2'] : []),
      });
      expect(await refusal(g.fetch(`http://127.0.0.1:${named.port}/`, { headers: {} }))).toMatch(
        new RegExp(`^refused: redirect to ${target.replace(/[[\].]/g, '\\$&')} \\(`),
      );
    }
    expect(inside.hits).toEqual([]);
    expect(other.hits).toEqual([]);
  });

  it('follows redirects within a named host, and to a named name', async () => {
    const target = await serve((_, res) => res.end('docs'), '127.0.0.2');
    const named = await redirectTo(`http://docs.internal:${target.port}/page`);
    const g = guard({
      allowPrivate: true,
      privateHosts: ['127.0.0.1', 'DOCS.internal'],
      resolve: async () => ['127.0.0.2'],
    });
    const res = await g.fetch(`http://127.0.0.1:${named.port}/`, { headers: {} });
    expect(await res.text()).toBe('docs');
    expect(target.hits).toEqual(['/page']);
  });

  it('without a list, opens only the host fetch was called with', async () => {
    const other = await serve((_, res) => res.end('other'), '127.0.0.2');
    const named = await redirectTo(`http://127.0.0.2:${other.port}/`);
    expect(await refusal(guard({ allowPrivate: true }).fetch(`http://127.0.0.1:${named.port}/`, { headers: {} }))).toBe(
      `refused: redirect to http://127.0.0.2:${other.port}/ (127.0.0.2 is a loopback address)`,
    );
    expect(other.hits).toEqual([]);
  });

  it('refuses link-local and metadata addresses even for a named host', async () => {
    const named = await redirectTo('http://169.254.169.254/latest/meta-data/');
    const g = guard({ allowPrivate: true, privateHosts: ['127.0.0.1', '169.254.169.254', 'meta.test'] });
    expect(await refusal(g.fetch(`http://127.0.0.1:${named.port}/`, { headers: {} }))).toBe(
      'refused: redirect to http://169.254.169.254/latest/meta-data/ (169.254.169.254 is a link-local address (cloud metadata))',
    );
    const byName = guard({ allowPrivate: true, privateHosts: ['meta.test'], resolve: async () => ['fe80::1'] });
    expect(await refusal(byName.fetch('http://meta.test/', { headers: {} }))).toBe(
      'refused: meta.test resolves to fe80::1, a link-local address',
    );
  });
});

describe('privateNetworkAddresses', () => {
  it('allows loopback, private and unique-local; refuses link-local, metadata and special ranges', () => {
    for (const ok of ['127.0.0.1', '::1', '10.1.2.3', '192.168.1.1', '172.16.0.1', 'fd12::1', '100.64.0.1', '8.8.8.8'])
      expect(privateNetworkAddresses(ok), ok).toBeNull();
    for (const no of [
      '169.254.169.254',
      '169.254.1.1',
      'fe80::1',
      'fd00:ec2::254',
      '100.100.100.200',
      '0.0.0.0',
      '224.0.0.1',
      '::ffff:169.254.169.254',
    ])
      expect(privateNetworkAddresses(no), no).not.toBeNull();
  });

  it('compares hosts in one spelling', () => {
    expect(hostKey('[0:0::1]')).toBe(hostKey('::1'));
    expect(hostKey('Docs.Internal')).toBe('docs.internal');
  });
});
