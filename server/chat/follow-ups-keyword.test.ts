/**
 * A follow-up in keyword mode (no embedding: what runs before the browser's model loads), through POST /api/chat
 * on PGlite, over a small knowledge base written here: the first answer lands on a page that is not about what
 * the follow-up asks, so the follow-up is refused within the thread and asked again as a new question with
 * the words it borrows. Its own words are not the page's ("taken" for "in use"), and that search is gated lower
 * when its first passage holds one of them (server/chat/answer.ts keywordRetryOptions).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestApi } from '../testing/api.ts';
import { page, type PagesKb, pagesKb } from '../testing/pages-kb.ts';

let kb: PagesKb;
let api: TestApi;

const PAGES: Record<string, string> = {
  'config.md': page(
    'Configuring the tool',
    'The config file sets the port the dev server listens on, the default mode and the output folder.',
  ),
  'server.md': page(
    'Server options',
    '## server.host\n\nThe host to bind to. The default is localhost.\n\n## server.strictPort\n\nSet to true to make the dev server exit if the port is already in use, instead of trying the next free one.',
  ),
  'build.md': page(
    'Building',
    'The build command writes the output folder. Assets smaller than the inline limit are inlined.',
  ),
  'deploy.md': page('Deploying', 'Upload the output folder to any static host, such as a bucket or a pages service.'),
  'env.md': page(
    'Environment variables',
    'Variables prefixed with APP_ are exposed to client code; keep secrets out of them.',
  ),
  'css.md': page('CSS', 'CSS modules are files ending in .module.css; their class names are scoped to the component.'),
  'assets.md': page('Static assets', 'Files in the public folder are copied as they are and keep their names.'),
  'workers.md': page('Web workers', 'A worker script is imported with the ?worker suffix and bundled on its own.'),
  'plugins.md': page('Plugins', 'Plugins are listed in the config file and run in the order given.'),
  'testing.md': page('Testing', 'Unit tests run with a separate runner that shares the same transforms.'),
};

beforeAll(async () => {
  kb = await pagesKb(PAGES);
  api = kb.api;
}, 60_000);
afterAll(async () => {
  await kb?.close();
});

async function ask(token: string, message: string, session_id: string) {
  const res = await api.chat(
    token,
    { message, message_id: crypto.randomUUID(), session_id },
    { headers: { Accept: 'application/json' } },
    api.instance({ retrieval: { mode: 'lexical' } }),
  );
  return (await res.json()) as { type: string; text?: string; citations?: { title: string }[] };
}

it('answers a follow-up worded unlike the page in keyword mode when its first answer was on another page', async () => {
  const { token } = await api.signIn();
  const session_id = crypto.randomUUID();
  const first = await ask(token, 'Which port does the dev server listen on?', session_id);
  expect(first.type).toBe('answer');
  const follow = await ask(token, "What happens if it's already taken?", session_id);
  expect(follow.type).toBe('answer');
  expect(follow.text).toContain('exit if the port is already in use');
  // A follow-up none of whose own words a page holds is still refused, whatever the borrowed words find.
  expect((await ask(token, 'Can I delete it?', session_id)).type).toBe('refusal');
});
