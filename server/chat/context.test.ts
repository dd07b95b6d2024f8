/**
 * The thread a follow-up is searched in (followUpFrom, pure): the pages the last answer cited first, then the
 * pages earlier answers cited, each once; a question read as complete gets none of it (followUpOf).
 */
import { describe, expect, it } from 'vitest';
import type { Citation } from '../../protocol/index.ts';
import type { MessageRow } from '../store/types.ts';
import { followUpFrom, followUpOf, newQuestionText, restsOnOwnWords } from './context.ts';

let n = 0;
function message(role: MessageRow['role'], content: string, documents: string[] = []): MessageRow {
  const citations = documents.map(
    (document_id, i) => ({ n: i + 1, document_id, chunk_id: `c-${document_id}`, title: document_id }) as Citation,
  );
  return { id: `m${n++}`, role, content, citations: role === 'assistant' ? citations : null, meta: {}, created_at: '' };
}

describe('the thread of a follow-up', () => {
  it("lists the last answer's documents, then the earlier answers' newest first, each once", () => {
    // Newest first, as get_recent_chat_messages returns them.
    const recent = [
      message('assistant', 'Ports.', ['config', 'how']),
      message('user', 'Which port does the server listen on?'),
      message('assistant', 'Browsers.', ['trouble', 'config']),
      message('user', 'Which browsers are supported?'),
      message('assistant', 'Threshold.', ['privacy']),
      message('user', 'What is the evidence threshold?'),
    ];
    const follow = followUpFrom('How do I change that?', recent);
    expect(follow?.sql.documents).toEqual(['config', 'how']);
    expect(follow?.sql.thread).toEqual(['trouble', 'privacy']);
    expect(follow?.terms).toEqual(['port', 'server', 'listen']);
  });

  it('has no earlier pages after a first answer', () => {
    const follow = followUpFrom('How do I change it?', [
      message('assistant', 'Threshold.', ['config']),
      message('user', 'What is the evidence threshold?'),
    ]);
    expect(follow?.sql).toMatchObject({ documents: ['config'], thread: [] });
  });

  it('reads nothing for a complete question or "Ask as a new question"', async () => {
    let reads = 0;
    const store = {
      recentMessages: async () => {
        reads++;
        return [message('assistant', 'Threshold.', ['config']), message('user', 'What is the evidence threshold?')];
      },
    };
    const claims = { sub: 'visitor', role: 'authenticated' } as never;
    const base = { session_id: 's', message_id: 'm' };
    expect(await followUpOf(store, claims, { ...base, query: 'Which browsers are supported by the widget?' })).toBe(
      null,
    );
    expect(await followUpOf(store, claims, { ...base, query: 'How do I change it?', context: false })).toBe(null);
    expect(reads).toBe(0);
    expect(await followUpOf(store, claims, { ...base, query: 'How do I change it?' })).not.toBe(null);
    expect(reads).toBe(1);
  });
});

describe('a follow-up asked again as a new question (restsOnOwnWords)', () => {
  const chunks = [{ content: 'The evidence threshold is set with the CHAT_EVIDENCE_THRESHOLD environment variable.' }];
  it('keeps an answer only when a retrieved chunk holds one of its own words, or it points back', () => {
    expect(restsOnOwnWords('And lunch?', chunks)).toBe(false);
    expect(restsOnOwnWords('And the variable?', chunks)).toBe(true);
    expect(restsOnOwnWords('How do I raise it?', chunks)).toBe(true);
    expect(restsOnOwnWords('And then?', chunks)).toBe(true);
  });
});

describe('the text a follow-up refused in the thread is asked again with (newQuestionText)', () => {
  const answered = [
    message('assistant', 'The dev server listens on port 5173.', ['server-options']),
    message('user', 'What port does the Vite dev server use by default?'),
  ];
  it('names what the pronoun stands for when the follow-up has one word of its own, without the pointing words', () => {
    expect(newQuestionText('Is it slow?', followUpFrom('Is it slow?', answered)!)).toBe(
      'Is slow? port vite dev server default',
    );
    // Two words of its own or more: with as many borrowed words, the nearest turn's first, so its own words
    // keep at least half of what is searched.
    const taken = "What happens if it's already taken?";
    expect(newQuestionText(taken, followUpFrom(taken, answered)!)).toBe('What happens if already taken? port vite dev');
    const homebrew = 'Can I install it with Homebrew?';
    expect(newQuestionText(homebrew, followUpFrom(homebrew, answered)!)).toBe('Can I install with Homebrew? port vite');
    // "mine" stands for the borrowed words: as a search word it is one no page about refunds holds.
    const refund = followUpFrom('Why was mine denied?', [
      message('assistant', 'Refunds.', ['refunds']),
      message('user', 'How long does a refund take?'),
    ])!;
    expect(newQuestionText('Why was mine denied?', refund)).toBe('Why was denied? long refund take');
    expect(refund.terms).toEqual(['long', 'refund', 'take']);
  });
  it('borrows nothing from a conversation whose answers were all refused', () => {
    const refused = [message('assistant', 'Sorry.'), message('user', 'Can I pay with bitcoin?')];
    const follow = followUpFrom('Which browsers does it support?', refused)!;
    expect(follow.terms).toContain('bitcoin');
    expect(newQuestionText('Which browsers does it support?', follow)).toBe('Which browsers does support?');
    expect(newQuestionText('Why was mine denied?', followUpFrom('Why was mine denied?', refused)!)).toBe(
      'Why was denied?',
    );
  });
});
