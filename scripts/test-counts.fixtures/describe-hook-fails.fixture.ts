// A hook that fails inside one describe: its tests are reported as skipped, the test beside it passes.
import { beforeAll, describe, expect, it } from 'vitest';

it('runs', () => expect(1).toBe(1));
describe('in Chromium', () => {
  beforeAll(() => {
    throw new Error('Chromium did not start');
  });
  it('renders', () => expect(1).toBe(1));
});
