/**
 * `threadReading` (context.ts, called by answer.ts): a question of a session searched without the thread — read as complete by the
 * detector, or a follow-up refused in the thread and answered as a new question — is extracted with the
 * thread only when the passage retrieval ranked first is on a page the conversation cited.
 */
import { describe, expect, it } from 'vitest';
import { type FollowUp, threadReading } from './context.ts';

const THREAD: FollowUp = {
  terms: ['usage', 'lower', 'committed', 'spend', 'tier'],
  text: 'Which tier do I need for a HIPAA BAA? (usage lower committed spend tier)',
  earlierAnswer: 'We will add a line item to your invoice to make up for the difference.',
  sql: {
    terms: 'usage lower committed spend tier',
    documents: ['spend'],
    thread: ['plans'],
    sections: [],
    points_back: false,
  },
  context: { used: true, about: 'usage lower committed spend tier' },
};

describe('threadReading', () => {
  it("reads the thread when the first passage is on the last answer's page", () => {
    expect(threadReading(THREAD, [{ document_id: 'spend' }, { document_id: 'compliance' }])).toBe(THREAD);
  });
  it("reads the thread when the first passage is on an earlier answer's page", () => {
    expect(threadReading(THREAD, [{ document_id: 'plans' }])).toBe(THREAD);
  });
  it('reads the question alone when the first passage is off the thread (a topic switch)', () => {
    expect(threadReading(THREAD, [{ document_id: 'compliance' }, { document_id: 'spend' }])).toBe(null);
  });
  it('reads the question alone without a thread or a passage', () => {
    expect(threadReading(null, [{ document_id: 'spend' }])).toBe(null);
    expect(threadReading(THREAD, [])).toBe(null);
  });
});
