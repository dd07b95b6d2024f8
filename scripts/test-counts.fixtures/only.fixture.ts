// A file with an `.only` left in it: its sibling would be dropped without a count, so CI refuses the file.
import { expect, it } from 'vitest';

it('is dropped by the only below', () => expect(1).toBe(1));
// biome-ignore lint/suspicious/noFocusedTests: the fixture is the focused test the runner must refuse in CI.
it.only('runs alone', () => expect(1).toBe(1));
