import { describe, expect, it } from 'vitest';
import type { SearchChunkRow } from '../store/types.ts';
import { anchorsOf, askedValue, statesAskedValue, statesValue } from './asked-value.ts';
import { decide } from './index.ts';
import { searchRow } from './search-row.ts';

const row = (id: string, content: string, coverage: number, cosine = coverage): SearchChunkRow =>
  searchRow({
    chunk_id: `${id}-chunk`,
    content,
    meta: { section: id },
    document_id: id,
    document_title: id,
    cosine,
    coverage,
  });

describe('askedValue', () => {
  it('reads a point in time from a past-tense "when" or "what year", a count from "how many", a version from "which … version"', () => {
    expect(askedValue('When was Railway founded?')).toBe('time');
    expect(askedValue('When did the 1973 oil crisis begin?')).toBe('time');
    expect(askedValue('Which year did the price of oil drop?')).toBe('time');
    expect(askedValue('How many employees does Railway have?')).toBe('count');
    expect(askedValue('Some of my logs are missing. How many log lines per second can I write?')).toBe('count');
    expect(askedValue('Which Python version does Vite require?')).toBe('version');
    expect(askedValue('Which Node.js version do I need to run Vite?')).toBe('version');
  });
  it('asks for no value when the question does not (a present-tense "when" asks for an event)', () => {
    expect(askedValue('When does Railway bill me?')).toBeNull();
    expect(askedValue('How do I pin a minor version?')).toBeNull();
    expect(askedValue('Is there a dark mode for the Railway dashboard?')).toBeNull();
  });
});

describe('anchorsOf', () => {
  it('takes what is counted or versioned from the question', () => {
    expect(anchorsOf('How many employees does Railway have?', [])).toEqual(['employee']);
    expect(anchorsOf('How many log lines per second can I write?', [])).toEqual(['log', 'line', 'per', 'second']);
    expect(anchorsOf('Which Node.js version do I need?', [])).toEqual(['node', 'js']);
  });
  it('otherwise the words the fewest candidates hold, never one most of them hold (a site name)', () => {
    const contents = [
      'Railway deploys your app.',
      'Railway projects can be found on your dashboard.',
      'Railway bills monthly.',
    ];
    expect(anchorsOf('When was Railway founded?', contents)).toEqual(['found']);
  });
});

describe('statesValue', () => {
  it('needs the value and the anchor in one sentence; a table counts as one', () => {
    expect(statesValue('Railway was founded in 2020. It hosts apps.', 'time', ['found'])).toBe(true);
    expect(statesValue('Projects can be found on your dashboard. Billing started in 2020.', 'time', ['found'])).toBe(
      false,
    );
    expect(statesValue('| Plan | Replicas |\n| --- | --- |\n| Pro | 50 |', 'count', ['replica'])).toBe(true);
    expect(statesValue('Vite requires Node.js version 20.19+.', 'version', ['node', 'js'])).toBe(true);
    expect(statesValue('Vite requires Node.js.', 'version', ['python'])).toBe(false);
  });
});

describe('statesAskedValue', () => {
  it('lets any candidate state the value; with no candidate holding a question word, any value does', () => {
    const contents = [
      'Use this setting to change the number of posts per page.',
      'By default, up to 10 posts are shown.',
    ];
    expect(statesAskedValue('How many posts are shown per page by default?', contents)).toBe(true);
    expect(statesAskedValue('How many does it allow?', ['You can attach up to 5 volumes.'])).toBe(true);
    expect(statesAskedValue('How do I deploy?', [])).toBe(true);
  });
});

describe('the gate with the value asked', () => {
  const options = { evidenceThreshold: 0.35 };
  const found = row('dashboard', 'Your Railway projects can be found on your dashboard.', 1, 0.6);
  it('refuses a question whose passing candidate covers its words but states no value of the kind asked', () => {
    const verdict = decide([found], 'hybrid', options, 'When was Railway founded?');
    expect(verdict).toMatchObject({ kind: 'refuse', evidence: 0, nearest: [] });
    expect(decide([found], 'lexical', options, 'When was Railway founded?').kind).toBe('refuse');
  });
  it('answers it when a candidate states the value beside the question word', () => {
    const history = row('history', 'Railway was founded in 2020 in San Francisco.', 0.5, 0.3);
    expect(decide([found, history], 'hybrid', options, 'When was Railway founded?').kind).toBe('answer');
  });
  it('leaves vector mode and questions asking for no value as they were', () => {
    expect(decide([found], 'vector', options, 'When was Railway founded?').kind).toBe('answer');
    expect(decide([found], 'hybrid', options, 'Where can I find my projects?').kind).toBe('answer');
  });
});
