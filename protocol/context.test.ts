/** The follow-up detector and the text a follow-up is embedded with (protocol/context.ts). */
import { describe, expect, it } from 'vitest';
import { borrowedTerms, dependsOnContext, earlierTopic, followUpText, withoutPointingWords } from './context.ts';

describe('dependsOnContext', () => {
  it.each([
    'How do I change it?',
    'What is its default?',
    'And on Pro?',
    'What about PDFs?',
    'Same for the Hobby plan?',
    'How long?',
    'Pro plan?',
    'Can I use replicas with them?',
    'Why was mine denied?',
    'How many can I add on Hobby?',
    // Carries on from the turn before ("instead" of what was said; "then", after it).
    'How do I build for staging instead?',
    'What happens to the search index then?',
    'So how do I check types for a production build?',
    // A default or an extreme with nothing named to own it.
    'What is the default limit?',
    "What's the shortest interval?",
  ])('reads %j as a follow-up', (q) => expect(dependsOnContext(q)).toBe(true));

  it.each([
    'What is the evidence threshold?',
    'Which browsers are supported?',
    'How do I point my own domain at my Railway service?',
    'Can I set a hard spending limit from the command line instead of the dashboard?',
    'Where is chat history stored?',
    'How many custom domains can I add to a service on the Hobby plan?',
    'How much did the gross agricultural product increase since 2004?',
    // "then" and "instead" inside a question, and a default that names its owner.
    'If I cancel, what happens then to my volume data?',
    'What is the default limit of build.assetsInlineLimit?',
    'What is the evidence threshold?',
  ])('reads %j as a complete question', (q) => expect(dependsOnContext(q)).toBe(false));
});

describe('followUpText', () => {
  it('adds the earlier topic words to a follow-up, and carries a follow-up’s own borrowed words on', () => {
    expect(followUpText('How do I change it?', { question: 'What is the evidence threshold?' })).toBe(
      'How do I change it? (evidence threshold)',
    );
    expect(borrowedTerms('What is its default?', 'How do I change it?', ['evidence', 'threshold'])).toEqual([
      'change',
      'evidence',
      'threshold',
    ]);
  });

  it('leaves a complete question, and a first question, as they are', () => {
    expect(followUpText('Which browsers are supported?', { question: 'What is the evidence threshold?' })).toBe(
      'Which browsers are supported?',
    );
    expect(followUpText('How do I change it?', null)).toBe('How do I change it?');
  });
});

describe('earlierTopic', () => {
  it('passes a refused follow-up’s borrowed words on to the next one', () => {
    const turns = [{ question: 'How do I change it?' }, { question: 'What is the evidence threshold?' }];
    expect(earlierTopic(turns)).toEqual({ question: 'How do I change it?', about: 'evidence threshold' });
    expect(earlierTopic([{ question: 'Which port?', about: 'server port' }])).toEqual({
      question: 'Which port?',
      about: 'server port',
    });
    expect(earlierTopic([])).toBe(null);
  });
});

describe('withoutPointingWords', () => {
  it('drops the words that stand for what was said before, and nothing else', () => {
    expect(withoutPointingWords('Why was mine denied?')).toBe('Why was denied?');
    expect(withoutPointingWords("What happens if it's already taken?")).toBe('What happens if already taken?');
    expect(withoutPointingWords('Can I give One a title?')).toBe('Can I give a title?');
    expect(withoutPointingWords('Which browsers are supported?')).toBe('Which browsers are supported?');
  });
});
