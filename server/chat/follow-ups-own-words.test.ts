/**
 * A follow-up whose next fact is in another section of the page the conversation is on, through POST /api/chat
 * on PGlite over a small knowledge base written here, embedded with the test double, in each retrieval mode.
 * On the thread's page retrieval ranks the sections by the earlier topic; a chunk that holds none of the
 * follow-up's own words weighs after those that do (follow-up-units.ts `ownWordRanks`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../testing/api.ts';
import { page, type PagesKb, pagesKb } from '../testing/pages-kb.ts';

let kb: PagesKb;
let api: TestApi;

const PAGES: Record<string, string> = {
  'free-trial.md': page(
    'Free Trial',
    [
      '## How far will the trial credits last?',
      'How long your trial credits last depends on how many resources you consume: the more you deploy, the faster the trial credits run out.',
      '## What can I use during the trial?',
      'During the trial you get the features of the Hobby plan with 1 GB of RAM. Your projects are limited to 5 services per project.',
      '## What happens to my trial credits when I upgrade?',
      'If you upgrade before your trial credits run out, the remaining trial credits carry over to your new plan.',
    ].join('\n\n'),
  ),
  'projects.md': page('Projects', 'A project groups services and their variables; invite members to a project.'),
  'services.md': page('Services', 'A service runs your code from a repository or an image.'),
  'billing.md': page('Billing', 'Invoices are sent at the start of each month for the usage of the month before.'),
  'volumes.md': page('Volumes', 'A volume keeps data across deployments. Each service can have one volume.'),
  'domains.md': page('Domains', 'Add a custom domain to a service and point its DNS record at the target.'),
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

const ask = (...args: Parameters<PagesKb['ask']>) => kb.ask(...args);

const FIRST = 'If I upgrade before my trial credits run out, do I lose the rest?';
const FOLLOW = 'How many services can I have during it?';

// Keyword mode refuses this follow-up's words on these few pages (no chunk holds enough of them).
describe.each(['hybrid', 'vector'] as const)('a follow-up in %s mode', (mode) => {
  it('quotes the section of the thread page that holds its own words first', async () => {
    const { token } = await api.signIn();
    const session_id = crypto.randomUUID();
    const first = await ask(mode, token, FIRST, session_id, null);
    expect(first.type).toBe('answer');
    expect(first.text).toContain('carry over');
    const follow = await ask(mode, token, FOLLOW, session_id, FIRST);
    expect(follow.type).toBe('answer');
    expect(follow.text).toContain('5 services per project');
    expect(follow.text).not.toContain('how many resources');
  });
});
