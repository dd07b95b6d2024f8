/**
 * Test support: a webhook receiver on 127.0.0.1 that records each delivery (headers, raw body, when it came)
 * and answers with whatever `respond` says — a status, or `'hang'` to never answer.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Resolves once `count` deliveries have arrived. */
  received(count: number, timeoutMs?: number): Promise<Delivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(
  respond: (delivery: Delivery, index: number) => number | 'hang' = () => 204,
): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const delivery = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() };
      deliveries.push(delivery);
      waiters.splice(0).forEach((wake) => wake());
      const answer = respond(delivery, deliveries.length - 1);
      if (answer !== 'hang') res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/kb`,
    deliveries,
    async received(count, timeoutMs = 10_000) {
      const until = performance.now() + timeoutMs;
      while (deliveries.length < count) {
        if (performance.now() > until)
          throw new Error(`${deliveries.length} of ${count} deliveries arrived in ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return deliveries.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
