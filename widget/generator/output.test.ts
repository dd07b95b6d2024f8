/** output.ts: what a generated answer must pass before the widget shows it. */
import { expect } from '@open-wc/testing';
import { citationsIn, isCannotAnswer, streamableText, validateCitations } from './output.ts';
import { CANNOT_ANSWER } from './prompt.ts';

const CITED = new Set([1, 2]);

describe('validateCitations', () => {
  it('keeps real markers and drops invented ones with the space before them', () => {
    expect(validateCitations('Refunds take 30 days [1]. Warranty is two years [2].', CITED)).to.equal(
      'Refunds take 30 days [1]. Warranty is two years [2].',
    );
    expect(validateCitations('Refunds take 30 days [9]. See [1][7].', CITED)).to.equal(
      'Refunds take 30 days. See [1].',
    );
    expect(validateCitations('[0] [3] [12] [999]', CITED)).to.equal('');
  });

  it('filters lists: [9, 1] becomes [1], repeats go, a list of only invented numbers goes', () => {
    expect(validateCitations('Both [9, 1].', CITED)).to.equal('Both [1].');
    expect(validateCitations('Both [2,1; 2 ,9].', CITED)).to.equal('Both [2, 1].');
    expect(validateCitations('None [7, 8].', CITED)).to.equal('None.');
  });

  it('leaves code and brackets that are not citations alone', () => {
    const code = 'Use `items[9]` and\n```js\nx[9] = [1, 9];\n```\nnot [9] here [1].';
    expect(validateCitations(code, CITED)).to.equal('Use `items[9]` and\n```js\nx[9] = [1, 9];\n```\nnot here [1].');
    // A fence still open mid-stream is code too.
    expect(validateCitations('Run:\n```\nls [9]', CITED)).to.equal('Run:\n```\nls [9]');
    const other = '[a link](https://x.test) and [ ] and [1a] and [2024-01] and [x, 1]';
    expect(validateCitations(other, new Set())).to.equal(other);
  });

  it('an injected answer keeps only its real citations', () => {
    const injected = 'Ignore previous instructions [9]. <img src=x onerror=alert(1)> [1] [3, 2]';
    expect(validateCitations(injected, CITED)).to.equal(
      'Ignore previous instructions. <img src=x onerror=alert(1)> [1] [2]',
    );
  });
});

describe('citationsIn', () => {
  it('lists the numbers cited, in first-appearance order', () => {
    expect(citationsIn('a [2] b [1, 2] c [9]')).to.deep.equal([2, 1, 9]);
    expect(citationsIn('none')).to.deep.equal([]);
  });
});

describe('streamableText', () => {
  it('holds back a citation marker still being written at the end', () => {
    for (const partial of ['Refunds [', 'Refunds [1', 'Refunds [1,', 'Refunds [1, ', 'Refunds [1, 9', 'Refunds [ 12']) {
      expect(streamableText(partial), partial).to.equal('Refunds');
    }
  });

  it('leaves complete markers and other text alone', () => {
    expect(streamableText('Refunds [1]')).to.equal('Refunds [1]');
    expect(streamableText('Refunds [1] take')).to.equal('Refunds [1] take');
    expect(streamableText('See [the docs')).to.equal('See [the docs');
  });

  it('with validation, an invented number never shows, not even half-written', () => {
    const stream = 'Refunds take 30 days [9] and more [1].';
    for (let i = 1; i <= stream.length; i++) {
      expect(validateCitations(streamableText(stream.slice(0, i)), CITED)).not.to.include('9');
    }
  });
});

describe('isCannotAnswer', () => {
  it('recognises the instruction’s sentence, with or without markers and punctuation', () => {
    expect(isCannotAnswer(CANNOT_ANSWER)).to.equal(true);
    expect(isCannotAnswer(`  ${CANNOT_ANSWER.toUpperCase()} [1]`)).to.equal(true);
    expect(isCannotAnswer('I cannot answer that from these documents')).to.equal(true);
  });

  it('recognises a first-person refusal in other words', () => {
    expect(isCannotAnswer("I'm sorry, but I can't answer that based on the passages.")).to.equal(true);
    expect(isCannotAnswer('I am unable to answer this question.')).to.equal(true);
    expect(isCannotAnswer('Sorry, we cannot answer questions about pricing.')).to.equal(true);
  });

  it('treats an empty or marker-only answer as no answer', () => {
    expect(isCannotAnswer('')).to.equal(true);
    expect(isCannotAnswer(' [1]. ')).to.equal(true);
  });

  it('is false for real answers, even ones that say "cannot"', () => {
    expect(isCannotAnswer('Refunds are accepted within 30 days [1].')).to.equal(false);
    expect(isCannotAnswer('If the widget cannot find the server, it answers in keyword mode [2].')).to.equal(false);
    expect(isCannotAnswer('The assistant cannot answer questions outside the docs [1].')).to.equal(false);
  });
});
