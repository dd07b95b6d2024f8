/** The two readings that decide whether a complete later turn is searched within the thread (thread-answer.ts). */
import { describe, expect, it } from 'vitest';
import { namesPageOf, offThread } from './thread-answer.ts';

describe('namesPageOf', () => {
  it('reads whether the page title holds one of the question own words, loosely', () => {
    const title = (document_title: string) => ({ document_title });
    expect(namesPageOf('How many services can I have in a project during the free trial?', title('Free Trial'))).toBe(
      true,
    );
    expect(namesPageOf('How do I get production source maps from vite build?', title('Build Options'))).toBe(true);
    expect(namesPageOf('Does Railway keep checking it after the deployment is live?', title('Skipped Builds'))).toBe(
      false,
    );
    // "how many" says which dimension is asked, not what about: "Many" in a title is not named by it.
    expect(namesPageOf('How many lines per second can I write?', title('Volumes'))).toBe(false);
    // A pointing word names nothing.
    expect(namesPageOf('Can I remove it?', title('It Works'))).toBe(false);
  });
});

describe('offThread', () => {
  const thread = (documents: string[], earlier: string[] = []) => ({
    sql: { terms: '', documents, thread: earlier, sections: [], points_back: false },
  });
  it('is true only when the conversation cited pages and the chunk is on none of them', () => {
    expect(offThread(thread(['a'], ['b']), { document_id: 'c' })).toBe(true);
    expect(offThread(thread(['a'], ['b']), { document_id: 'b' })).toBe(false);
    expect(offThread(thread(['a']), { document_id: 'a' })).toBe(false);
    expect(offThread(thread([]), { document_id: 'c' })).toBe(false);
  });
});
