/**
 * Retrieval cites one chunk per section (`decide`), and hands extraction the section's other candidates as
 * `siblings`: the value asked or the block a question points at can sit in the chunk after the one whose
 * words matched (Vite's `server.sourcemapIgnoreList`: a note in one chunk, "By default, …" in the next; the
 * troubleshooting entry whose "To solve this:" ends one chunk and whose commands open the next).
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../retrieval/index.ts';
import { searchRow } from '../retrieval/search-row.ts';
import type { ChunkMatch } from '../store/types.ts';
import { extractAnswer } from './extract.ts';

const chunk = (id: string, content: string, section: string, document_id = 'options'): ChunkMatch => ({
  chunk_id: id,
  content,
  meta: { section },
  document_id,
  document_title: `Doc ${document_id}`,
  document_url: null,
  similarity: 0.6,
});

const OPTION = 'Server Options › server.ignoreList';
const note = chunk(
  'note',
  '> **Note**\n>\n> `server.ignoreList` and `build.ignoreList` need to be set independently; the server value is not taken from the build value.',
  OPTION,
);
const byDefault = chunk(
  'default',
  'During dev, absolute paths are used. By default, it excludes all paths containing `node_modules`.',
  OPTION,
);
const other = chunk(
  'port',
  'The port the server listens on. By default, it is `5173`.',
  'Server Options › server.port',
);

const STALLED = 'Troubleshooting › Requests are stalled forever';
const cause = chunk(
  'cause',
  'If you are using Linux, file descriptor limits may be causing the issue. To solve this:',
  STALLED,
  'troubleshooting',
);
const fix = chunk(
  'fix',
  '```shell\n# Change the limit (temporary)\n$ ulimit -Sn 10000\n```',
  STALLED,
  'troubleshooting',
);

describe('the other chunks of the best unit’s section', () => {
  it('give the value asked when the chunk retrieval kept holds none, cited as that section', () => {
    const question = 'What is the default value of server.ignoreList?';
    expect(extractAnswer(question, [note, other]).text).not.toContain('node_modules');
    const answer = extractAnswer(question, [note, other], {}, [byDefault]);
    expect(answer.text).toContain('By default, it excludes all paths containing `node_modules`. [1]');
    // Another section's default is not the answer, and the sibling is not a second citation or a related source.
    expect(answer.text).not.toContain('5173');
    expect(answer.citations.map((c) => c.chunk_id)).toEqual(['note']);
    expect(answer.related.map((r) => r.chunk_id)).toEqual(['port']);
  });

  it('give the block the question points at when the kept chunk ends on its lead-in', () => {
    const question = 'Requests hang forever on Linux. How do I raise the file descriptor limit?';
    expect(extractAnswer(question, [cause]).text).not.toContain('ulimit');
    const answer = extractAnswer(question, [cause], {}, [fix]);
    expect(answer.text).toContain('$ ulimit -Sn 10000');
    expect(answer.citations).toHaveLength(1);
  });

  it('are read only from the best unit’s section, never from another section', () => {
    const answer = extractAnswer('What is the default value of server.ignoreList?', [note], {}, [other]);
    expect(answer.text).not.toContain('5173');
  });
});

describe('decide', () => {
  const row = (id: string, content: string, section: string, cosine: number, coverage: number) =>
    searchRow({
      chunk_id: id,
      content,
      meta: { section },
      document_id: 'options',
      document_title: 'Options',
      cosine,
      coverage,
    });

  it('keeps one chunk per section and returns the others of the kept sections as siblings, best first', () => {
    const got = decide(
      [
        row('note', 'note', OPTION, 0.8, 0.8),
        row('default', 'default', OPTION, 0.5, 0.5),
        row('port', 'port', 'Server Options › server.port', 0.7, 0.7),
        row('default-2', 'default 2', OPTION, 0.6, 0.6),
      ],
      'hybrid',
      { evidenceThreshold: 0.3, matchCount: 1 },
    );
    expect(got.kind).toBe('answer');
    if (got.kind !== 'answer') return;
    expect(got.chunks.map((c) => c.chunk_id)).toEqual(['note']);
    // server.port was not kept (one chunk asked for), so its chunk is no sibling.
    expect(got.siblings?.map((c) => c.chunk_id)).toEqual(['default-2', 'default']);
  });
});
