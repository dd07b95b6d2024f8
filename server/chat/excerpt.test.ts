import { describe, expect, it } from 'vitest';
import { excerpt } from './excerpt.ts';

describe('excerpt', () => {
  it('keeps underscores inside words and drops them as emphasis', () => {
    expect(excerpt('Set `KB_JWT_SECRET` to a _long_ random value, __never__ the default.', 300)).toBe(
      'Set KB_JWT_SECRET to a long random value, never the default.',
    );
  });

  it('drops the other markup: headings, list markers, links, emphasis, code fences', () => {
    expect(excerpt('## Setup\n\n- Run **npm start**, see [the guide](/docs/x).\n\n```sh\nnpm i\n```', 300)).toBe(
      'Run npm start, see the guide.',
    );
  });

  it('cuts at a word boundary with an ellipsis', () => {
    expect(excerpt('one two three four five six', 12)).toBe('one two…');
  });
});
