/**
 * The drain of a graceful shutdown, without a process (the real-process tests are test/e2e/shutdown.test.ts):
 * requests inside the app are waited for, a request arriving while draining is turned away with 503 +
 * Retry-After + Connection: close, and connections are closed only once the bound has passed.
 */
import type { ServerType } from '@hono/node-server';
import { describe, expect, it, vi } from 'vitest';
import { StreamSlots } from '../../chat/route.ts';
import { Drain, onShutdownSignals } from './shutdown.ts';

function fakeServer() {
  const calls: string[] = [];
  const server = {
    close: () => void calls.push('close'),
    closeIdleConnections: () => void calls.push('closeIdle'),
    closeAllConnections: () => void calls.push('closeAll'),
  };
  return { server: server as unknown as ServerType, calls };
}

describe('Drain', () => {
  it('waits for requests inside the app and open streams, and turns newcomers away with 503', async () => {
    const streams = new StreamSlots(10);
    const drain = new Drain(streams);
    let finish!: () => void;
    const slow = drain.guard(
      (_request: Request) => new Promise<Response>((resolve) => (finish = () => resolve(new Response('ok')))),
    );
    const inFlight = slow(new Request('http://x/api/chat'));
    streams.tryAcquire(); // an answer still streaming
    const { server, calls } = fakeServer();
    const stopping = drain.shutdown(server, 5_000);

    const late = await drain.guard((_request: Request) => new Response('served'))(new Request('http://x/api/health'));
    expect(late.status).toBe(503);
    expect(late.headers.get('Retry-After')).toBe('5');
    expect(late.headers.get('Connection')).toBe('close');
    expect(await late.json()).toEqual({ error: { code: 'unavailable', message: expect.stringMatching(/restarting/) } });

    finish();
    expect(await (await inFlight).text()).toBe('ok');
    streams.release(); // the stream stored its answer and ended
    const report = await stopping;
    expect(report).toMatchObject({ inFlight: 2, cut: false });
    expect(calls).toEqual(['close', 'closeIdle']);
  });

  it('past the bound it closes every connection, then still waits for the streams to store their answers', async () => {
    const streams = new StreamSlots(10);
    const drain = new Drain(streams);
    streams.tryAcquire();
    // The drain's clock is faked (its timers and performance.now): "before" and "past" the bound are exact.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const { server, calls } = fakeServer();
      const stopping = drain.shutdown(server, 20);
      await vi.advanceTimersByTimeAsync(19);
      expect(calls).toEqual(['close', 'closeIdle']);
      await vi.advanceTimersByTimeAsync(1);
      expect(calls).toEqual(['close', 'closeIdle', 'closeAll']);
      streams.release();
      await vi.advanceTimersByTimeAsync(25);
      expect(await stopping).toMatchObject({ inFlight: 1, cut: true });
    } finally {
      vi.useRealTimers();
    }
  });

  it('a first signal starts the graceful stop, a second one exits at once (128 + the signal)', async () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const before = { term: process.listeners('SIGTERM'), int: process.listeners('SIGINT') };
    try {
      const graceful = vi.fn(() => new Promise<void>(() => {})); // a drain that never ends
      onShutdownSignals(graceful);
      process.emit('SIGTERM');
      expect(graceful).toHaveBeenCalledWith('SIGTERM');
      expect(exit).not.toHaveBeenCalled();
      process.emit('SIGINT');
      expect(exit).toHaveBeenCalledWith(130);
      expect(graceful).toHaveBeenCalledTimes(1);
    } finally {
      exit.mockRestore();
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        const keep = signal === 'SIGTERM' ? before.term : before.int;
        for (const listener of process.listeners(signal))
          if (!keep.includes(listener)) process.removeListener(signal, listener);
      }
    }
  });
});

describe('settleWebhooks', () => {
  it('waits for deliveries that finish in time, and drops (and logs) those that do not', async () => {
    const { createWebhooks } = await import('../../webhooks/dispatcher.ts');
    const hang = createWebhooks({
      target: async () => ({ url: 'https://hooks.example.com/kb', secret: 'whsec-0123456789abcdef' }),
      post: () => new Promise<number>(() => {}),
      timeoutMs: 60_000,
      log: () => {},
    });
    const { settleWebhooks } = await import('./shutdown.ts');
    const warnings: string[] = [];
    hang.emit('answer.rated', {
      message_id: 'm',
      visitor: 'v-0',
      rating: 1,
      comment: null,
      rated_at: '2026-11-26T00:00:00Z',
    });
    expect(await settleWebhooks(hang, 50, (m) => warnings.push(m))).toBe(1);
    expect(warnings).toEqual([expect.stringMatching(/1 webhook deliveries were still running after 0.05 s: dropped/)]);
    const quick = createWebhooks({ target: async () => ({ url: null, secret: null }), post: async () => 204 });
    quick.emit('answer.rated', {
      message_id: 'm',
      visitor: 'v-0',
      rating: 1,
      comment: null,
      rated_at: '2026-11-26T00:00:00Z',
    });
    expect(await settleWebhooks(quick, 1_000, (m) => warnings.push(m))).toBe(0);
    expect(warnings).toHaveLength(1);
  });
});
