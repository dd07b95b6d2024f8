/**
 * A follow-up the detector reads as complete ("Which tier do I need for a HIPAA BAA?" after a question about
 * usage below a committed spend tier), through POST /api/chat on PGlite over a small knowledge base written
 * here, embedded with the test double. It is searched as a new question; its answer's first passage is on the
 * thread's page, so its units are scored as a follow-up's (context.ts `threadReading`): the earlier topic's
 * words bring the sentence that names the tier next to the one that names a BAA. Asked alone it quotes the
 * compliance section only. A question about another page is answered as alone. Keyword mode quotes the
 * compliance section either way on these pages, so it is not asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dependsOnContext } from '../../protocol/index.ts';
import type { TestApi } from '../testing/api.ts';
import { page, type PagesKb, pagesKb } from '../testing/pages-kb.ts';
let kb: PagesKb;
let api: TestApi;
const PAGES: Record<string, string> = {
  'committed-spend.md': page(
    'Committed Spend',
    [
      'Railway offers committed spend tiers for customers with steady usage.',
      '## Usage below the commitment',
      'If your usage is lower than your committed spend tier, we add a line item to your invoice for the difference.',
      '## Compliance',
      'HIPAA Business Associate Agreements cover compliant health data handling. If you need a BAA, write to the solutions team.',
      '## What each level unlocks',
      'A committed spend of $1000 a month unlocks HIPAA BAAs and 90-day log history.',
    ].join('\n\n'),
  ),
  'projects.md': page('Projects', 'A project groups services and their variables; invite members to a project.'),
  'services.md': page('Services', 'A service runs your code from a repository or an image.'),
  'billing.md': page('Billing', 'Invoices are sent at the start of each month for the usage of the month before.'),
  'volumes.md': page('Volumes', 'A volume keeps data across deployments. Each service can have one volume.'),
  'logs.md': page('Logs', 'Logs are kept for seven days on Hobby and thirty days on Pro.'),
  'support.md': page('Support', 'Pro users get help from the team through the support forum.'),
};
beforeAll(async () => {
  kb = await pagesKb(PAGES);
  ({ api } = kb);
}, 60_000);
afterAll(async () => {
  await kb?.close();
});
const FIRST = 'What happens if my usage is lower than my committed spend tier?';
const NEXT = 'Which tier do I need for a HIPAA BAA?';
const SWITCH = 'How long are logs kept on Pro?';

describe.each(['hybrid', 'vector'] as const)('a follow-up read as complete, in %s mode', (mode) => {
  it('is extracted with the thread when its first passage is on the thread page', async () => {
    expect(dependsOnContext(NEXT)).toBe(false);
    const { token } = await api.signIn();
    const session_id = crypto.randomUUID();
    const first = await kb.ask(mode, token, FIRST, session_id, null);
    expect(first.text).toContain('line item');
    const next = await kb.ask(mode, token, NEXT, session_id, FIRST);
    expect(next.text).toContain('$1000');
    const alone = await kb.ask(mode, token, NEXT, crypto.randomUUID(), null);
    expect(alone.type).toBe('answer');
    expect(alone.text).not.toContain('$1000');
  });

  it('answers a question about another page as alone', async () => {
    expect(dependsOnContext(SWITCH)).toBe(false);
    const { token } = await api.signIn();
    const session_id = crypto.randomUUID();
    await kb.ask(mode, token, FIRST, session_id, null);
    const inThread = await kb.ask(mode, token, SWITCH, session_id, FIRST);
    const alone = await kb.ask(mode, token, SWITCH, crypto.randomUUID(), null);
    expect(inThread.text).toContain('thirty days on Pro');
    expect(inThread.text).toBe(alone.text);
  });
});
