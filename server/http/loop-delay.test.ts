import { describe, expect, it } from 'vitest';
import { monitorLoopDelay } from './loop-delay.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('monitorLoopDelay', () => {
  it('sees the loop held for 300 ms, and forgets it once the window has passed', async () => {
    const loop = monitorLoopDelay(10, 100);
    try {
      await sleep(50);
      const busyUntil = performance.now() + 300;
      while (performance.now() < busyUntil); // the loop cannot run its timers meanwhile
      // Seen at once (the tick is overdue by about 290 ms) ...
      expect(loop.delayMs()).toBeGreaterThanOrEqual(250);
      // ... and after that tick has run, as its share of the window's mean: about 290 ms over 10 ticks.
      await sleep(5);
      expect(loop.delayMs()).toBeGreaterThanOrEqual(25);
      // Past the window the pause is gone (other work on this machine may still make ticks a little late).
      await sleep(300);
      expect(loop.delayMs()).toBeLessThan(15);
    } finally {
      loop.stop();
    }
  });
});
