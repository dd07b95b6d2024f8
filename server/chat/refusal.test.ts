import { describe, expect, it } from 'vitest';
import { noEvidenceRefusal } from './refusal.ts';

describe('the "no evidence" refusal', () => {
  it('does not mention support when no support address is set', () => {
    const refusal = noEvidenceRefusal();
    expect(refusal.message).toBe(
      "I don't have enough information to answer that question. You might try rephrasing your question.",
    );
    expect(refusal.message).not.toMatch(/support/i);
    // The action is still sent: a page's own support-url or kb-escalate listener shows the chip.
    expect(refusal.actions).toEqual(['contact_support', 'rephrase']);
  });

  it('mentions support when the owner set where it is', () => {
    const refusal = noEvidenceRefusal(undefined, [], 'mailto:help@example.com');
    expect(refusal.message).toBe(
      "I don't have enough information to answer that question. You might try contacting support or rephrasing your question.",
    );
  });

  it('follows the owner\'s suggestions: without "Contact support" no mention, without either no hint', () => {
    expect(noEvidenceRefusal(['Rephrase your question'], [], 'https://help.example.com').message).not.toMatch(
      /support/i,
    );
    expect(noEvidenceRefusal(['Contact support'], [], 'https://help.example.com').message).toMatch(
      /You might try contacting support\.$/,
    );
    expect(noEvidenceRefusal(['How do I install it?'], []).message).toBe(
      "I don't have enough information to answer that question.",
    );
  });
});
