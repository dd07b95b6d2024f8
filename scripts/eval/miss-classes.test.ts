/** Where the fact of an answer citing the answering page without it is, among the candidates. */
import { describe, expect, it } from 'vitest';
import { chunkMatch } from '../../server/testing/chunks.ts';
import { missClass } from './miss-classes.ts';

const page = 'support';
const intro = chunkMatch(
  'intro',
  'Railway conducts its support over Central Station.',
  { section: 'Central station' },
  page,
);
const ask = chunkMatch('ask', 'Please include:\n\n- IDs\n- Logs', { section: 'How to ask for help' }, page);
const askMore = chunkMatch('ask-2', 'Also include error messages.', { section: 'How to ask for help' }, page);
const pro = chunkMatch('pro', 'Pro users get direct help.', { section: 'Support tiers' }, page);
const other = chunkMatch('other', 'Join the community.', { section: 'Closing' }, 'blog');
const holds = (fact: string) => (content: string) => content.includes(fact);

describe('missClass', () => {
  it('the fact in a section the answer quotes: another unit of it was chosen', () => {
    expect(missClass(['ask'], [intro, ask], [askMore], [], page, holds('error messages'))).toBe('right section');
  });

  it('the fact in another section of the page that extraction received', () => {
    expect(missClass(['intro'], [intro, ask, other], [], [], page, holds('IDs'))).toBe('another section, received');
  });

  it('the fact in another chunk of a received section that was not quoted', () => {
    expect(missClass(['intro'], [intro, ask], [askMore], [], page, holds('error messages'))).toBe(
      'another chunk of a received section',
    );
  });

  it('the fact in a candidate of the page retrieval did not pass on, or in none', () => {
    expect(missClass(['intro'], [intro], [], [intro, pro], page, holds('direct help'))).toBe(
      'a candidate not received',
    );
    expect(missClass(['intro'], [intro], [], [intro, other], page, holds('community'))).toBe('no candidate');
  });
});
