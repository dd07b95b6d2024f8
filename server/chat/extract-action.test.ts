/**
 * A how-to question's action (extract.ts `score`, answer-type.ts `actionOf`): the answer-type boost goes only to
 * a unit that holds the verb after "how do I". Chunks as ingested from the corpora in ../shared/data (MkDocs
 * Material's setup/adding-a-git-repository.md, Railway's feature-flags.md), copied here so the test runs without
 * them. Apart from extract.test.ts to keep each file short.
 */
import { describe, expect, it } from 'vitest';
import type { ChunkMatch } from '../store/types.ts';
import { actionOf } from './answer-type.ts';
import { extractAnswer } from './extract.ts';

const make = (id: string, section: string, content: string, similarity = 0.5): ChunkMatch => ({
  chunk_id: id,
  content,
  meta: { section },
  document_id: id.split('#')[0]!,
  document_title: section.split(' › ')[0]!,
  document_url: null,
  similarity,
});

/** MkDocs Material, setup/adding-a-git-repository.md, "Document dates": the install command, then the configuration. */
const documentDates = make(
  'git#1',
  'Adding a git repository › Configuration › Revisioning › Document dates',
  [
    'The [git-revision-date-localized] plugin adds support for adding the date of',
    'last update and creation of a document at the bottom of each page. Install it',
    'with `pip`:',
    '',
    '```',
    'pip install mkdocs-git-revision-date-localized-plugin',
    '```',
    '',
    'Then, add the following lines to `mkdocs.yml`:',
    '',
    '```yaml',
    'plugins:',
    '  - git-revision-date-localized:',
    '      enable_creation_date: true',
    '```',
    '',
    'The following configuration options are supported:',
  ].join('\n'),
);

/** Railway, feature-flags.md: "TypeScript SDK" (the install command) and its "Authentication" subsection. */
const sdk = make(
  'flags#1',
  'TypeScript SDK',
  [
    'Read flags at runtime with the [Railway TypeScript SDK](https://github.com/railwayapp/railway-ts-sdk), which is open source on GitHub.',
    '',
    '```bash',
    'bun add railway',
    '```',
    '',
    '**Note:** The SDK is under active development while feature flags are in Priority Boarding, and its API may change in breaking ways between releases.',
  ].join('\n'),
  0.55,
);
const sdkAuth = make(
  'flags#2',
  'TypeScript SDK › Authentication',
  [
    'The recommended setup uses a [project token](/integrations/api#project-token), which authenticates the SDK and identifies the project that owns the flags.',
    '',
    'Set the project token as the `RAILWAY_TOKEN` variable on your service. The SDK reads it automatically and infers the project from the token:',
    '',
    '```typescript',
    'import { flags } from "railway";',
    '',
    'await flags.init();',
    '```',
  ].join('\n'),
);

describe('the action of a how-to question', () => {
  it('is the verb after "how do I" or "how to", an adverb skipped; none for other questions', () => {
    expect(actionOf('How do I install the plugin that shows the last update date of a page?')).toBe('install');
    expect(actionOf('My deploy is stuck. How can I manually redeploy it?')).toBe('redeploy');
    expect(actionOf('How to add line numbers to a code block?')).toBe('add');
    expect(actionOf('Which packages does the imaging extra install?')).toBeNull();
    expect(actionOf('How long are logs kept?')).toBeNull();
  });

  it('the block that does it beats a block echoing more of the question: pip install, not mkdocs.yml', () => {
    const answer = extractAnswer('How do I install the plugin that shows the last update date of a page?', [
      documentDates,
    ]);
    expect(answer.text).toContain('pip install mkdocs-git-revision-date-localized-plugin');
    expect(answer.text).not.toContain('enable_creation_date');
  });

  it('no block holding the action keeps the boost: the install command, not the set-up block below it', () => {
    const answer = extractAnswer('How do I install the Railway TypeScript SDK for feature flags?', [sdk, sdkAuth]);
    expect(answer.text).toContain('bun add railway');
    expect(answer.text).not.toContain('await flags.init()');
  });

  it('other questions keep the boost for every block of the type', () => {
    // A command question not phrased "how do I": the configuration block still counts as the command.
    const answer = extractAnswer('What should I add to mkdocs.yml for the last update date plugin?', [documentDates]);
    expect(answer.text).toContain('enable_creation_date: true');
  });
});
