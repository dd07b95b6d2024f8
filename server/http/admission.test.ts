import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ChatStore } from '../store/types.ts';
import { question, useTestApi } from '../testing/api.ts';
import { basis } from '../testing/vectors.ts';
import { AdmissionQueue, MAX_RETRY_AFTER_SECONDS } from './admission.ts';

// The queue's clock is faked (timers and performance.now), so "at once" and "after the bound" are exact, not
// timings of this machine.
describe('AdmissionQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Settles `promise` without moving the clock: undefined while it is still pending. */
  async function settled<T>(
    promise: Promise<T>,
  ): Promise<{ value?: T; error?: { status: number; retryAfterSeconds: number } } | undefined> {
    let out: { value?: T; error?: { status: number; retryAfterSeconds: number } } | undefined;
    promise.then(
      (value) => (out = { value }),
      (error) => (out = { error }),
    );
    await vi.advanceTimersByTimeAsync(0);
    return out;
  }

  it('admits up to `concurrency` at once and the rest in arrival order', async () => {
    const queue = new AdmissionQueue({ concurrency: 2, budgetMs: 5_000 });
    const order: number[] = [];
    const leaves = await Promise.all([queue.enter(), queue.enter()]);
    const later = [2, 3, 4].map((n) => queue.enter().then((leave) => (order.push(n), leave)));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(order).toEqual([]); // both places taken
    leaves[0]!();
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual([2]);
    leaves[1]!();
    (await later[0]!)();
    await vi.advanceTimersByTimeAsync(0);
    for (const leave of await Promise.all(later.slice(1))) leave();
    expect(order).toEqual([2, 3, 4]);
    // Both places are free again: two requests are admitted at once.
    const again = [await settled(queue.enter()), await settled(queue.enter())];
    expect(again.map((a) => typeof a?.value)).toEqual(['function', 'function']);
  });

  /** `count` requests of `ms` each, one after another: the moving average of a service time climbs towards `ms`. */
  async function serve(queue: AdmissionQueue, count: number, ms: number) {
    for (let i = 0; i < count; i++) {
      const leave = await queue.enter();
      await vi.advanceTimersByTimeAsync(ms);
      leave();
    }
  }

  it('turns a request away at once when its expected time is over the budget', async () => {
    const queue = new AdmissionQueue({ concurrency: 1, budgetMs: 150, random: () => 0 });
    await serve(queue, 8, 100); // the service time's moving average passes 80 ms
    const holder = await queue.enter();
    expect(queue.expectedMs()).toBeGreaterThan(150); // a wait of one service time, then its own
    const outcome = await settled(queue.enter()); // no time passes
    expect(outcome?.error?.status).toBe(503);
    expect(outcome?.error?.retryAfterSeconds).toBe(1);
    holder();
  });

  it('sends a waiting request away when its actual wait passes what its budget leaves', async () => {
    const queue = new AdmissionQueue({ concurrency: 1, budgetMs: 50 });
    // The service time starts at 10 ms: the next one queues, and may wait 50 - 10 = 40 ms.
    const holder = await queue.enter();
    let outcome: number | 'admitted' | undefined;
    queue.enter().then(
      () => (outcome = 'admitted'),
      (error: { status: number }) => (outcome = error.status),
    );
    await vi.advanceTimersByTimeAsync(39);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBe(503);
    holder();
    // The place it left is not lost: the next request is admitted at once.
    expect((await settled(queue.enter()))?.value).toBeTypeOf('function');
  });

  it('loses no place when a waiter times out just as its turn comes (found by npm run bench -- load)', async () => {
    const queue = new AdmissionQueue({ concurrency: 1, budgetMs: 50 });
    const holder = await queue.enter();
    // The holder leaves 40 ms in, just before the waiters' 40 ms bounds expire (its timer was set first):
    // its place goes to the first waiter on the next macrotask, after that waiter's bound has run out.
    setTimeout(holder, 40);
    const outcomes: (number | 'admitted')[] = [];
    const waiters = [queue.enter(), queue.enter()].map((p) =>
      p.then(
        (leave) => (outcomes.push('admitted'), leave),
        (error: { status: number }) => void outcomes.push(error.status),
      ),
    );
    await vi.advanceTimersByTimeAsync(40);
    await vi.advanceTimersByTimeAsync(100);
    for (const leave of await Promise.all(waiters)) if (leave) leave();
    expect(outcomes).toHaveLength(2);
    // Every place is free again: as many requests as `concurrency` are admitted at once, with no wait.
    expect(queue.expectedMs()).toBeLessThan(50);
    const next = await settled(queue.enter());
    expect(next?.value).toBeTypeOf('function');
    next!.value!();
    expect(queue.expectedMs()).toBeLessThan(50);
  });

  it('runs fewer at once when service times grow, but always admits the first two', async () => {
    const queue = new AdmissionQueue({ concurrency: 4, budgetMs: 150 });
    await serve(queue, 8, 200); // as when the cores are busy: the moving average passes 160 ms
    const first = await settled(queue.enter());
    const second = await settled(queue.enter());
    // Admitted although each is expected to take 160 ms > 150 ms.
    expect([typeof first?.value, typeof second?.value]).toEqual(['function', 'function']);
    // A place is free, but a third request is expected to take its own service time, over the budget.
    expect((await settled(queue.enter()))?.error?.status).toBe(503);
    first!.value!();
    expect((await settled(queue.enter()))?.value).toBeTypeOf('function');
    second!.value!();
  });

  it('counts how late the event loop has been: a late loop sheds all but the first two requests', async () => {
    let lag = 0;
    const queue = new AdmissionQueue({ concurrency: 4, budgetMs: 100, loopDelayMs: () => lag, random: () => 0 });
    const holders = [await queue.enter(), await queue.enter()];
    const third = await settled(queue.enter());
    expect(third?.value).toBeTypeOf('function'); // 10 ms expected, well inside 100
    lag = 120; // e.g. another process held the core for 120 ms
    const fourth = await settled(queue.enter());
    expect(fourth?.error?.status).toBe(503);
    expect(fourth?.error?.retryAfterSeconds).toBe(1);
    for (const leave of holders) leave();
    third!.value!();
    expect((await settled(queue.enter()))?.value).toBeTypeOf('function'); // idle again: admitted
  });

  it('tells a crowd it turns away to come back over the time it needs to serve them, spread', async () => {
    let jitter = 0.99;
    const queue = new AdmissionQueue({ concurrency: 1, budgetMs: 150, random: () => jitter });
    await serve(queue, 8, 100); // ≈ 8 finished in the last second
    const holder = await queue.enter();
    const retryAfter = async () => (await settled(queue.enter()))?.error?.retryAfterSeconds;
    expect(await retryAfter()).toBe(1); // one turned away: room again well within a second
    for (let i = 0; i < 38; i++) await retryAfter();
    // 40 turned away at ≈ 5 finished a second (a count that decays while none finish): ≈ 8 s to serve them,
    // each sent somewhere in (0.1–1) × 8 s.
    const late = await retryAfter();
    jitter = 0;
    const early = await retryAfter();
    expect(late).toBeGreaterThanOrEqual(6);
    expect(late).toBeLessThanOrEqual(MAX_RETRY_AFTER_SECONDS);
    expect(early).toBeLessThanOrEqual(2);
    holder();
  });

  it('spreads a crowd larger than the longest Retry-After over it instead of sending everyone the longest', async () => {
    let jitter = 0;
    const queue = new AdmissionQueue({ concurrency: 1, budgetMs: 150, random: () => jitter });
    const holder = await queue.enter();
    const retryAfter = async () => (await settled(queue.enter()))?.error?.retryAfterSeconds;
    for (let i = 0; i < 200; i++) await retryAfter(); // nothing finished yet: 200 s to serve them
    const sent: number[] = [];
    for (const at of [0, 0.25, 0.5, 0.75, 0.99]) {
      jitter = at;
      sent.push((await retryAfter())!);
    }
    expect(new Set(sent).size).toBe(sent.length); // five visitors, five different times
    expect(Math.max(...sent)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(Math.min(...sent)).toBeLessThanOrEqual(2);
    holder();
  });

  it('admits no one beyond `concurrency` while a freed place is being handed over', async () => {
    const queue = new AdmissionQueue({ concurrency: 1, budgetMs: 5_000 });
    const holder = await queue.enter();
    let admitted = 0;
    const waiting = queue.enter().then((leave) => (admitted++, leave));
    holder(); // handed to the waiter on the next macrotask
    const newcomer = queue.enter().then((leave) => (admitted++, leave));
    await vi.advanceTimersByTimeAsync(0);
    expect(admitted).toBe(1); // the waiter, not the newcomer as well
    (await waiting)();
    await vi.advanceTimersByTimeAsync(0);
    expect(admitted).toBe(2);
    (await newcomer)();
  });
});

describe('POST /api/chat behind admission control', () => {
  // The real app and database, with the first question's search held until the test lets it go (a wrapper
  // around the real store): everyone after it waits past the bound whatever the speed of this machine.
  const api = useTestApi({ seed: true, overrides: { admission: { concurrency: 1, budgetMs: 50 } } });

  it('serves what fits in the wait bound, answers the rest 503 + Retry-After, and writes nothing for them', async () => {
    const held = heldSearch(api().store);
    const app = api().instance({ store: held.store, admission: { concurrency: 1, budgetMs: 50 } });
    const tokens = await Promise.all(Array.from({ length: 12 }, () => api().signIn(app)));
    const ask = (token: string) =>
      api().chat(token, question(basis(0)), { headers: { Accept: 'application/json' } }, app);
    const first = ask(tokens[0]!.token);
    await held.entered; // the only place is taken, and stays taken
    const busy = await Promise.all(tokens.slice(1).map(({ token }) => ask(token)));
    held.release();
    const served = await first;
    expect(served.status).toBe(200);
    expect(busy.map((r) => r.status)).toEqual(Array(11).fill(503));
    for (const r of busy) {
      expect(Number(r.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
      expect(await r.json()).toEqual({ error: { code: 'unavailable', message: expect.stringMatching(/try again/) } });
    }
    // Rejected before the turn began: only the served question (and its answer) is stored.
    const { rows } = await api().store.db.query<{ n: number }>(
      "select count(*)::int as n from chat_messages where role = 'user'",
    );
    expect(rows[0]!.n).toBe(1);
    // Served answers say how long the server took and how long they waited for their turn.
    expect(served.headers.get('Server-Timing')).toMatch(
      /app;dur=[\d.]+.*queue;dur=[\d.]+|queue;dur=[\d.]+.*app;dur=[\d.]+/,
    );
    // The place is free again: the next question is served.
    expect((await ask(tokens[1]!.token)).status).toBe(200);
  });
});

/** The store, with the first searchChunks call held at its start until `release()`; `entered` once it is. */
function heldSearch(store: ChatStore): { store: ChatStore; entered: Promise<void>; release: () => void } {
  let enter!: () => void;
  let release!: () => void;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  const held = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key === 'searchChunks') {
        return async (...args: unknown[]) => {
          if (first) {
            first = false;
            enter();
            await released;
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: held, entered, release };
}
