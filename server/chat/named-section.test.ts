import { describe, expect, it } from 'vitest';
import type { ChunkMatch } from '../store/types.ts';
import { extractAnswer } from './extract.ts';
import { identifierWords, namedSectionRanks, ownHeadingWords } from './named-section.ts';

const section = (id: string, heading_path: string[], content: string, document_id = 'build'): ChunkMatch => ({
  chunk_id: id,
  content,
  meta: { heading_path, section: heading_path.join(' › ') },
  document_id,
  document_title: heading_path[0]!,
  document_url: null,
  similarity: 0.5,
});

// The two sections of Vite's config/build-options.md as ingested: the option retrieval ranks first mentions the
// one asked about in its text.
const ssrManifest = section(
  'ssr',
  ['Build Options', 'build.ssrManifest'],
  [
    '- **Type:** `boolean | string`',
    '- **Default:** `false`',
    '- **Related:** [Server-Side Rendering](/guide/ssr)',
    '',
    'Whether to generate a SSR manifest file for determining style links and asset preload directives in production.',
    '',
    'When the value is a string, it will be used as the manifest file path relative to `build.outDir`. When set to `true`, the path would be `.vite/ssr-manifest.json`.',
  ].join('\n'),
);
const outDir = section(
  'out',
  ['Build Options', 'build.outDir'],
  [
    '- **Type:** `string`',
    '- **Default:** `dist`',
    '',
    'Specify the output directory (relative to [project root](/guide/#index-html-and-project-root)).',
  ].join('\n'),
);
const own = (q: string) => new Set(identifierWords(q));

describe('a section the question names', () => {
  it('reads the deepest heading, camelCase identifiers split into words ("out" is a stop word)', () => {
    expect(ownHeadingWords(outDir)).toEqual(['build', 'dir']);
  });

  it('takes the rank of its page’s first chunk when its heading is made only of the question’s words', () => {
    const q = own('What is the default value of build.outDir?');
    expect(namedSectionRanks([ssrManifest, outDir], q)).toEqual([null, 0]);
    // Another page's first chunk does not lend its rank.
    const elsewhere = { ...outDir, document_id: 'other' };
    expect(namedSectionRanks([ssrManifest, elsewhere], q)).toEqual([null, null]);
  });

  it('not with a heading of one word, one the question lacks, or the page title itself', () => {
    const caching = section('c', ['Dependency Pre-Bundling', 'Caching'], 'Vite caches it.');
    const intro = section('i', ['Dependency Pre-Bundling'], 'Vite pre-bundles dependencies.');
    const first = section('f', ['Dependency Pre-Bundling', 'The Why'], 'Why.');
    expect(namedSectionRanks([first, caching], own('Where does caching happen?'))).toEqual([null, null]);
    expect(namedSectionRanks([first, intro], own('Does dependency pre-bundling run in builds?'))).toEqual([null, null]);
    expect(namedSectionRanks([ssrManifest, outDir], own('What is the default build directory?'))).toEqual([null, null]);
  });

  it('"What is the default value of build.outDir?" quotes build.outDir’s default, not build.ssrManifest’s', () => {
    const answer = extractAnswer('What is the default value of build.outDir?', [ssrManifest, outDir]);
    expect(answer.text).toContain('**Default:** `dist`');
    expect(answer.text).not.toContain('`false`');
    expect(answer.citations[0]!.section).toBe('Build Options › build.outDir');
  });

  it('a question asking for no value or type keeps retrieval’s order', () => {
    const answer = extractAnswer('Why would I generate a manifest relative to build.outDir?', [ssrManifest, outDir]);
    expect(answer.citations[0]!.section).toBe('Build Options › build.ssrManifest');
  });
});
