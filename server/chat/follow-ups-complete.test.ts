/**
 * A later turn the detector reads as complete, through POST /api/chat on PGlite over a small knowledge base
 * written here, embedded with the test double, in each retrieval mode. "Does Railway keep checking it after the
 * deployment is live?" after a question about healthchecks has more than four words of its own, so it is
 * searched as in a new session, and alone its words lead to Skipped Builds ("keeps checking … deployment …
 * live"), a page whose title it does not name and that the conversation never cited: it is searched once more
 * within the thread and answered from Healthchecks (server/chat/thread-answer.ts). A topic switch that names
 * its page ("… during the free trial?" on Free Trial) is answered exactly as alone. Keyword mode does not take
 * the thread's answer (thread-answer.ts): the topic switch of server/chat/follow-ups.test.ts holds it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../testing/api.ts';
import { page, type PagesKb, pagesKb } from '../testing/pages-kb.ts';

let kb: PagesKb;
let api: TestApi;

const PAGES: Record<string, string> = {
  'healthchecks.md': page(
    'Healthchecks',
    [
      '## Configure a healthcheck endpoint',
      'Set a healthcheck path on the service: Railway calls the endpoint of a new deployment until it answers 200, and only then routes traffic to it.',
      '## Continuous monitoring',
      'Railway does not monitor the healthcheck endpoint after the deployment has gone live.',
    ].join('\n\n'),
  ),
  'skipped-builds.md': page(
    'Skipped Builds',
    'Railway keeps checking the source of every new deployment: when the code of a live deployment is unchanged, the build is skipped and the image reused.',
  ),
  'free-trial.md': page(
    'Free Trial',
    'During the free trial your projects are limited to 5 services per project and 1 GB of RAM.',
  ),
  'volumes.md': page('Volumes', 'A volume keeps data across deployments. Each service can have one volume.'),
  'domains.md': page('Domains', 'Add a custom domain to a service and point its DNS record at the target.'),
  'logs.md': page('Logs', 'Logs are kept for seven days on Hobby and thirty days on Pro.'),
  'billing.md': page('Billing', 'Invoices are sent at the start of each month for the usage of the month before.'),
  'support.md': page('Support', 'Pro users get help from the team through the support forum.'),
  'regions.md': page('Regions', 'Services can run in several regions; moving a volume to another region takes time.'),
};

beforeAll(async () => {
  kb = await pagesKb(PAGES);
  ({ api } = kb);
}, 60_000);
afterAll(async () => {
  await kb?.close();
});

const ask = (...args: Parameters<PagesKb['ask']>) => kb.ask(...args);

const FIRST = 'How do I set up a healthcheck endpoint for my service?';
const POINTING = 'Does Railway keep checking it after the deployment is live?';
const SWITCH = 'How many services can I have in a project during the free trial?';

describe.each(['hybrid', 'vector'] as const)('a later turn read as complete, in %s mode', (mode) => {
  it('is answered from the thread when alone it lands on a page it does not name, off the thread', async () => {
    const { token } = await api.signIn();
    const session_id = crypto.randomUUID();
    const first = await ask(mode, token, FIRST, session_id, null);
    expect(first.text).toContain('calls the endpoint of a new deployment');
    const alone = await ask(mode, token, POINTING, crypto.randomUUID(), null);
    expect(alone.text).toContain('the build is skipped');
    const later = await ask(mode, token, POINTING, session_id, FIRST);
    expect(later.type).toBe('answer');
    expect(later.text).toContain('does not monitor the healthcheck endpoint');
  });

  it('a topic switch that names its page is answered as alone', async () => {
    const { token } = await api.signIn();
    const session_id = crypto.randomUUID();
    await ask(mode, token, FIRST, session_id, null);
    const later = await ask(mode, token, SWITCH, session_id, FIRST);
    const alone = await ask(mode, token, SWITCH, crypto.randomUUID(), null);
    expect(later.text).toContain('5 services per project');
    expect(later.text).toBe(alone.text);
  });
});
