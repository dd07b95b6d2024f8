/**
 * Extraction's refers-back rule (extract.ts `choose`): a quoted sentence that refers back brings what it refers
 * to — the sentence before it, or the block before it (with its lead-in) when the answer has no block yet.
 * Apart from extract.test.ts to keep each file short.
 */
import { describe, expect, it } from 'vitest';
import { chunkMatch } from '../testing/chunks.ts';
import { extractAnswer } from './extract.ts';

// Railway's integrations/oauth.md, "OIDC configuration": the URL is in a code block, and the sentence after it
// names "discovery document", the words visitors ask with.
const oidc = chunkMatch(
  'oidc',
  [
    'The OpenID Connect configuration is published at a standard well-known endpoint:',
    '',
    '```',
    'https://backboard.railway.com/oauth/.well-known/openid-configuration',
    '```',
    '',
    'This discovery document contains all the metadata your application needs to implement authentication: the authorization and token endpoints, supported scopes and response types, the JWKS URI for validating ID tokens, and other protocol details. OAuth libraries typically consume this endpoint automatically during setup.',
  ].join('\n'),
);

describe('a sentence that refers back to a block', () => {
  it('brings the block it refers to, with its lead-in', () => {
    const answer = extractAnswer('Where do I find the discovery document?', [oidc]);
    expect(answer.text).toContain('https://backboard.railway.com/oauth/.well-known/openid-configuration');
    expect(answer.text.indexOf('The OpenID Connect configuration is published')).toBe(0);
    expect(answer.text).toContain('This discovery document contains all the metadata');
  });

  it('does not bring a block when the sentence does not refer back', () => {
    const plain = chunkMatch(
      'plain',
      [
        'Run the migration with:',
        '',
        '```',
        'npm run migrate',
        '```',
        '',
        'Discovery documents are cached for an hour.',
      ].join('\n'),
    );
    const answer = extractAnswer('How long are discovery documents cached?', [plain]);
    expect(answer.text).toBe('Discovery documents are cached for an hour. [1]');
  });
});
