import { describe, expect, it } from 'vitest';
import { mayCarry } from './gate.ts';
import { asksPastTime, statesTime } from './time-asked.ts';

describe('a question asking when something happened', () => {
  it('is a "when was / were / did" question, read from its last sentence', () => {
    expect(asksPastTime('When was Railway founded?')).toBe(true);
    expect(asksPastTime('when did Vite 3 come out')).toBe(true);
    expect(asksPastTime('I read the changelog. When were these flags added?')).toBe(true);
    expect(asksPastTime('When does Railway bill me?')).toBe(false);
    expect(asksPastTime('How was Railway founded?')).toBe(false);
    expect(asksPastTime('When was it founded? Who founded it?')).toBe(false);
    expect(asksPastTime(undefined)).toBe(false);
  });

  it('needs a passage stating a date, a version or a year', () => {
    expect(statesTime('Railway was founded in 2020.')).toBe(true);
    expect(statesTime('_July 23, 2022_ - Check out the announcement')).toBe(true);
    expect(statesTime('Vite requires Node.js version 20.19+.')).toBe(true);
    expect(statesTime('Projects can be found on your dashboard.')).toBe(false);
    expect(statesTime('Listens on port 80800.')).toBe(false);
  });

  it('keeps a chunk without a point in time from carrying the gate, whatever its coverage', () => {
    const undated = { coverage: 1, content: 'Projects can be found on your dashboard.' };
    expect(mayCarry(undated, 'lexical', 0, true)).toBe(false);
    expect(mayCarry(undated, 'lexical', 0, false)).toBe(true);
    expect(mayCarry({ coverage: 1, content: 'Founded in 2020.' }, 'hybrid', 0.35, true)).toBe(true);
    expect(mayCarry({ coverage: 0.2, content: 'Founded in 2020.' }, 'vector', 0.3, true)).toBe(false);
  });
});
