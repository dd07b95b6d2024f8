import { describe, expect, it } from 'vitest';
import { clearOfWindowEdge } from './rate-window.ts';

describe('clearOfWindowEdge', () => {
  it('returns at once with the margin left, and waits into the next window without it', async () => {
    // A one-second window: whatever the clock, a margin of 0 never waits and one over a whole window always does.
    let start = Date.now();
    await clearOfWindowEdge(1, 0);
    expect(Date.now() - start).toBeLessThan(50);
    start = Date.now();
    await clearOfWindowEdge(1, 1001);
    const waited = Date.now() - start;
    expect(waited).toBeGreaterThan(0);
    expect(Math.floor(Date.now() / 1000)).toBeGreaterThan(Math.floor(start / 1000));
  });
});
