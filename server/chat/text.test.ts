import { describe, expect, it } from 'vitest';
import { contentWords } from './text.ts';

describe('contentWords', () => {
  it('folds plural and past forms onto the word a question uses', () => {
    expect(contentWords('refunds browsers supported')).toEqual(contentWords('refund browser supports'));
    expect(contentWords('it will not be retried')).toEqual(contentWords('does it retry'));
    expect(contentWords('policies applied')).toEqual(['policy', 'apply']);
  });
});
