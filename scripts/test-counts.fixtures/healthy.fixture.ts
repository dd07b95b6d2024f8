// A file that runs: one pass, one failure, one skipped on purpose (as when ../shared is absent).
import { expect, it } from 'vitest';

it('passes', () => expect(1).toBe(1));
it('fails', () => expect(1).toBe(2));
it.skip('needs the shared data', () => expect(1).toBe(1));
