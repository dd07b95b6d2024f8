/**
 * A follow-up that names the dimension it asks ("how long") after an answer that quoted a value of it, through
 * POST /api/chat on PGlite over a small knowledge base written here, embedded with the test double, in each
 * retrieval mode. The new value is in another section of the page the conversation is on; the earlier
 * answer's table holds "Pro" and durations too, so it passed as "the unit that holds the value asked" and was
 * quoted again (follow-up-units.ts `mayRepeat`). Now a unit the earlier answer did not quote that holds a value
 * of the dimension asked keeps the repeat out (`freshValueOf`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../testing/api.ts';
import { page, type PagesKb, pagesKb } from '../testing/pages-kb.ts';

let kb: PagesKb;
let api: TestApi;

const PAGES: Record<string, string> = {
  'plans.md': page(
    'Pricing plans',
    [
      '## How long do you keep my volume data after I cancel my plan?',
      'When you cancel a plan, we keep your volume data for a grace period that depends on the plan.',
      '| Plan | Days kept |\n| --- | --- |\n| Hobby | 60 days after cancellation |\n| Pro | 90 days after cancellation |',
      '## Image retention policy',
      'Images of removed deployments are retained for a time that depends on the plan; rolling back is possible while the image is retained.',
      '| Plan | Rollback window |\n| --- | --- |\n| Hobby | 72 hours |\n| Pro | 120 hours |',
      '## Seats',
      'Every plan includes unlimited seats for your team members.',
    ].join('\n\n'),
  ),
  'volumes.md': page('Volumes', 'A volume keeps data across deployments. Each service can have one volume.'),
  'deployments.md': page(
    'Deployments',
    'A deployment builds your code and starts it. You can roll back to an earlier deployment from its menu.',
  ),
  'backups.md': page('Backups', 'Backups copy a volume on a schedule; daily backups are kept for six days.'),
  'domains.md': page('Domains', 'Add a custom domain to a service and point its DNS record at the target.'),
  'logs.md': page('Logs', 'Logs are kept for seven days on Hobby and thirty days on Pro.'),
  'billing.md': page('Billing', 'Invoices are sent at the start of each month for the usage of the month before.'),
  'support.md': page('Support', 'Pro users get help from the team through the support forum.'),
  'regions.md': page('Regions', 'Services can run in several regions; moving a volume to another region takes time.'),
  'cli.md': page('Command line', 'The command line tool deploys a folder and streams its logs.'),
};

beforeAll(async () => {
  kb = await pagesKb(PAGES);
  ({ api } = kb);
}, 60_000);
afterAll(async () => {
  await kb?.close();
});

const ask = (...args: Parameters<PagesKb['ask']>) => kb.ask(...args);

const FIRST = 'If I cancel my plan, how long do you keep my volume data?';
const FOLLOW = 'And on Pro, how long can I roll back?';

describe.each(['hybrid', 'vector', 'lexical'] as const)('a follow-up in %s mode', (mode) => {
  it('quotes the section of the thread page that holds the next fact, not the one just quoted', async () => {
    const { token } = await api.signIn();
    const session_id = crypto.randomUUID();
    const first = await ask(mode, token, FIRST, session_id, null);
    expect(first.type).toBe('answer');
    expect(first.text).toContain('90 days after cancellation');
    const follow = await ask(mode, token, FOLLOW, session_id, FIRST);
    expect(follow.type).toBe('answer');
    expect(follow.text).toContain('120 hours');
    expect(follow.text).not.toContain('90 days after cancellation');
  });
});
