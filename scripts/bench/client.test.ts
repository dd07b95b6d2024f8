/**
 * The bench client's times start when a request's headers are written, not when it is called: against a
 * real HTTP server on 127.0.0.1 that answers after a known wait, with fifty requests sent at once from this
 * one process (so some queue in the client before they go out).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chat } from './client.ts';

const WAIT_MS = 120;
let server: Server;
let base: string;
const seenIds: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seenIds.push(String(request.headers['x-kb-bench-id']));
    request.resume();
    request.on('end', () =>
      setTimeout(() => {
        response.writeHead(200, { 'Content-Type': 'text/event-stream' });
        response.write('event: answer_start\ndata: {}\n\n');
        setTimeout(() => response.end('event: answer_delta\ndata: {}\n\nevent: answer_end\ndata: {}\n\n'), 30);
      }, WAIT_MS),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('times a chat from its headers written, and reports the client queue before that apart', async () => {
  const calledAt = performance.now();
  const timings = await Promise.all(Array.from({ length: 50 }, () => chat(base, 'token', 'Hello?', [0.1, 0.2])));
  for (const t of timings) {
    expect(t.kind).toBe('answer');
    expect(seenIds).toContain(t.message_id); // the request carried its id, so its send time was found
    expect(t.started_ms).toBeGreaterThanOrEqual(calledAt);
    expect(t.send_delay_ms).toBeGreaterThanOrEqual(0);
    expect(t.ttfb_ms!).toBeGreaterThanOrEqual(WAIT_MS - 5);
    expect(t.first_delta_ms!).toBeGreaterThan(t.ttfb_ms!);
    expect(t.total_ms).toBeGreaterThanOrEqual(t.first_delta_ms!);
  }
  // Fifty calls at once from one process: the later ones went out after the first ones.
  expect(Math.max(...timings.map((t) => t.send_delay_ms))).toBeGreaterThan(0);
});
