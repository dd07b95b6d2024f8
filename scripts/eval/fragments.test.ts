/**
 * Every expected fragment of the conversation sets is verbatim in the page it names, and every question of the
 * question sets has at least one fragment verbatim in its page (after the same
 * whitespace folding the eval's fact check does), so a miss in the eval is the system's, not the set's.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = path.join(import.meta.dirname, 'qa');
const fold = (s: string) => s.replace(/\s+/g, ' ');

describe('conversation sets', () => {
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.json') && f.includes('conversations'))) {
    it(`${name}: every fragment is in its page`, () => {
      const file = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as {
        corpus: string;
        conversations: { turns: { expect: string[]; source: string; q: string }[] }[];
        topic_switch?: { turns: { expect: string[]; source: string; q: string }[] }[];
        off_topic?: { turns: { expect: string[]; source: string; q: string }[] }[];
      };
      const corpus = path.resolve(file.corpus);
      const missing: string[] = [];
      for (const c of [...file.conversations, ...(file.topic_switch ?? []), ...(file.off_topic ?? [])]) {
        for (const turn of c.turns) {
          const page = fold(readFileSync(path.join(corpus, turn.source), 'utf8'));
          for (const fragment of turn.expect)
            if (!page.includes(fold(fragment))) missing.push(`${turn.source}: ${fragment}`);
        }
      }
      expect(missing).toEqual([]);
    });
  }
});

describe('question sets', () => {
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.json') && !f.includes('conversations'))) {
    it(`${name}: every question has a fragment that is in its page`, () => {
      const file = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as {
        corpus: string;
        items: { expect: string[]; source: string; q: string }[];
      };
      const corpus = path.resolve(file.corpus);
      const missing = file.items
        .filter((item) => {
          const page = fold(readFileSync(path.join(corpus, item.source), 'utf8'));
          return !item.expect.some((fragment) => page.includes(fold(fragment)));
        })
        .map((item) => `${item.source}: ${item.q}`);
      expect(missing).toEqual([]);
    });
  }
});
