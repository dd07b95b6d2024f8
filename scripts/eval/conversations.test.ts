import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Reply } from './ask.ts';
import { readConversationFile, repeats } from './conversations.ts';

const answer = (text: string): Reply => ({ kind: 'answer', text, citations: [], mode: 'hybrid', ms: 1 });

describe('repeats', () => {
  it('is an answer opening with the earlier answer’s first sentence', () => {
    const earlier = answer('To add the widget, paste two lines: [1] ```html <kb-chat></kb-chat>```');
    expect(repeats(answer('To add the widget, paste two lines: [1] Then reload.'), earlier)).toBe(true);
    expect(repeats(answer('Only the ingest command can change the knowledge base. [1]'), earlier)).toBe(false);
    expect(repeats({ kind: 'refusal', reason: 'no_evidence', ms: 1 }, earlier)).toBe(false);
  });
});

describe('conversation sets', () => {
  const dir = path.join(import.meta.dirname, 'qa');
  const files = readdirSync(dir).filter((f) => f.includes('conversations'));
  it.each(files)('%s parses, and its off-topic follow-ups each have a complete rewrite', async (name) => {
    const file = await readConversationFile(path.join(dir, name));
    for (const o of file.off_topic) {
      expect(o.follow_up.standalone.length).toBeGreaterThan(o.follow_up.q.length);
      expect(o.turns.length).toBeGreaterThan(0);
    }
  });
});
