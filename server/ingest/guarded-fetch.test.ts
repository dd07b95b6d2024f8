/**
 * The fetch guard against real HTTP servers on loopback addresses — never anything else: a name's addresses
 * are checked where the socket connects, redirects are counted, bodies are capped while they stream.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { publicAddressesOnly } from './address-policy.ts';
import { createFetchGuard, CrawlRefusal, type FetchGuard } from './guarded-fetch.ts';

const open: Server[] = [];
const guards: FetchGuard[] = [];
afterEach(async () => {
  await Promise.all(guards.splice(0).map((g) => g.close()));
  await Promise.all(open.splice(0).map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections())));
});

async function serve(
  handler: RequestListener,
  host = '127.0.0.1',
  port = 0,
): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  open.push(server);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
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

describe('addresses', () => {
  it('refuses a name that resolves to loopback where it connects, before anything is sent', async () => {
    const { port, hits } = await serve((_, res) => res.end('internal'));
    const g = guard({ resolve: async () => ['127.0.0.1'] });
    expect(await refusal(g.fetch(`http://intranet.test:${port}/`, { headers: {} }))).toBe(
      'refused: intranet.test resolves to 127.0.0.1, a loopback address',
    );
    expect(hits).toEqual([]);
  });

  it('connects only to the checked addresses of a name that has both kinds', async () => {
    // 127.0.0.2 stands in for a public address (no public host can be reached from here); 127.0.0.1 is
    // the internal one, on the same port, and must never be connected to.
    const allowed = await serve((_, res) => res.end('public'), '127.0.0.2');
    const internal = await serve((_, res) => res.end('internal'), '127.0.0.1', allowed.port);
    const g = guard({
      resolve: async () => ['127.0.0.1', '127.0.0.2'],
      addressPolicy: (address) => (address === '127.0.0.2' ? null : publicAddressesOnly(address)),
    });
    for (let i = 0; i < 3; i++) {
      const res = await g.fetch(`http://mixed.test:${allowed.port}/${i}`, { headers: {} });
      expect(await res.text()).toBe('public');
    }
    expect(internal.hits).toEqual([]);
    expect(allowed.hits).toEqual(['/0', '/1', '/2']);
  });

  it('allowPrivate connects to loopback', async () => {
    const { port } = await serve((_, res) => res.end('internal'));
    const res = await guard({ allowPrivate: true }).fetch(`http://127.0.0.1:${port}/`, { headers: {} });
    expect(await res.text()).toBe('internal');
  });
});

describe('redirects', () => {
  it('follows at most 5, and reports the final URL', async () => {
    const { port, hits } = await serve((req, res) => {
      const n = Number(req.url!.slice(1));
      if (n < 10) res.writeHead(302, { location: `/${n + 1}` }).end();
      else res.end('end');
    });
    const g = guard({ allowPrivate: true });
    const five = await g.fetch(`http://127.0.0.1:${port}/5`, { headers: {} });
    expect(five.url).toBe(`http://127.0.0.1:${port}/10`);
    hits.length = 0;
    expect(await refusal(g.fetch(`http://127.0.0.1:${port}/0`, { headers: {} }))).toBe(
      'refused: more than 5 redirects',
    );
    expect(hits).toEqual(['/0', '/1', '/2', '/3', '/4', '/5']);
  });

  it('checks a redirect to a name where it connects, and says which hop was refused', async () => {
    const secret = await serve((_, res) => res.end('secret'));
    // docs.stand-in.test stands in for a public site (no public host can be reached from here): on
    // 127.0.0.2, which the policy treats as public; intranet.test is an internal name on 127.0.0.1.
    const standIn = await serve(
      (_, res) => res.writeHead(307, { location: `http://intranet.test:${secret.port}/secret` }).end(),
      '127.0.0.2',
    );
    const g = guard({
      resolve: async (host) =>
        host === 'docs.stand-in.test' ? ['127.0.0.2'] : host === 'intranet.test' ? ['127.0.0.1'] : [],
      addressPolicy: (address) => (address === '127.0.0.2' ? null : publicAddressesOnly(address)),
    });
    expect(await refusal(g.fetch(`http://docs.stand-in.test:${standIn.port}/`, { headers: {} }))).toBe(
      `refused: redirect to http://intranet.test:${secret.port}/secret (intranet.test resolves to 127.0.0.1, a loopback address)`,
    );
    expect(standIn.hits).toEqual(['/']);
    expect(secret.hits).toEqual([]);
  });

  it('refuses a redirect to anything but http(s)', async () => {
    const { port } = await serve((_, res) => res.writeHead(301, { location: 'file:///etc/passwd' }).end());
    expect(await refusal(guard({ allowPrivate: true }).fetch(`http://127.0.0.1:${port}/`, { headers: {} }))).toBe(
      'refused: redirect to file:///etc/passwd (only http and https URLs are fetched)',
    );
  });
});

describe('byte caps', () => {
  it('stops reading a response at the cap and closes the connection, without waiting for the rest', async () => {
    let finished = false;
    const { port } = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.alloc(16 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 32 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end(() => (finished = true));
      };
      pump();
    });
    const res = await guard({ allowPrivate: true, maxResponseBytes: 64 * 1024 }).fetch(`http://127.0.0.1:${port}/`, {
      headers: {},
    });
    expect(await refusal(res.bytes())).toBe('too large: over 64 KiB');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(finished).toBe(false);
  });

  it('refuses a declared Content-Length over the cap before reading any of it', async () => {
    // Only the headers are sent: a guard that waited for the body would wait for ever.
    const { port } = await serve((_, res) =>
      res.writeHead(200, { 'content-length': String(1024 * 1024) }).flushHeaders(),
    );
    const res = await guard({ allowPrivate: true, maxResponseBytes: 1000 }).fetch(`http://127.0.0.1:${port}/`, {
      headers: {},
    });
    const waited = new Promise((resolve) => setTimeout(resolve, 2000, 'still reading'));
    expect(await Promise.race([refusal(res.bytes()), waited])).toBe('too large: over 1000 bytes');
  });

  it('counts every response against the crawl total, then fetches nothing more', async () => {
    const { port, hits } = await serve((_, res) => res.end(Buffer.alloc(40 * 1024, 'b')));
    const g = guard({ allowPrivate: true, maxTotalBytes: 100 * 1024 });
    for (const path of ['/1', '/2'])
      expect((await (await g.fetch(`http://127.0.0.1:${port}${path}`, { headers: {} })).bytes()).length).toBe(
        40 * 1024,
      );
    const third = await g.fetch(`http://127.0.0.1:${port}/3`, { headers: {} });
    expect(await refusal(third.bytes())).toBe("too large: the crawl's total of 100 KiB was reached");
    expect(g.exhausted).toBe(true);
    expect(await refusal(g.fetch(`http://127.0.0.1:${port}/4`, { headers: {} }))).toBe(
      "too large: the crawl's total of 100 KiB was reached",
    );
    expect(hits).toEqual(['/1', '/2', '/3']);
  });
});
