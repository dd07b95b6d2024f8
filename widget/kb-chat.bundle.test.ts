/**
 * The built bundles as shipped (dist/kb-chat.js + its hashed chat UI and embedder, built by the test config into
 * test-results/widget-dist/): the element finds its worker next to itself and its API at its own origin,
 * with no overrides. The API is the same fake as in kb-chat.test.ts (the real server has its own tests).
 */
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import type KbChat from './kb-chat.component.ts';
import type { ChatUi } from './ui/chat-ui.ts';
import { fakeLog, resetFake } from './test/fake-log.ts';

const BUNDLE = '/test-results/widget-dist/kb-chat.js';

describe('built kb-chat.js', () => {
  before(async () => {
    await resetFake();
    await import(/* @vite-ignore */ BUNDLE);
  });

  it('stays within the size budgets: loader ≤ 4 KB gz, chat UI ≤ 40 KB gz', async () => {
    // Written by buildWidget() (esbuild.config.mjs) when the test config built the bundles.
    const sizes = (await (await fetch('/test-results/widget-dist/sizes.json')).json()) as {
      file: string;
      gzip: number;
      budget: number | null;
    }[];
    const gzip = (name: string) => sizes.find((s) => s.file.endsWith(`/${name}`))!.gzip;
    expect(gzip('kb-chat.js')).to.be.at.most(4 * 1024);
    expect(gzip('kb-chat-ui.js')).to.be.at.most(40 * 1024);
    for (const { file, gzip: size, budget } of sizes) if (budget !== null) expect(size, file).to.be.at.most(budget);
  });

  it('answers a question using the hashed chat UI and embedder from next to itself', async () => {
    // Written by buildWidget(): the content-hashed names the loader was compiled with.
    const manifest = (await (await fetch('/test-results/widget-dist/manifest.json')).json()) as Record<
      'ui' | 'embedder' | 'generative' | 'captcha',
      string
    >;
    expect(manifest.ui).to.match(/^kb-chat-ui\.[0-9a-f]{10}\.js$/);
    expect(manifest.embedder).to.match(/^kb-chat-embedder\.[0-9a-f]{10}\.js$/);
    expect(manifest.generative).to.match(/^kb-chat-generative\.[0-9a-f]{10}\.js$/);
    expect(manifest.captcha).to.match(/^kb-chat-captcha\.[0-9a-f]{10}\.js$/);
    const el = await fixture<KbChat>(html`<kb-chat heading="Help"></kb-chat>`);
    const root = el.shadowRoot!;
    expect(root.querySelector('.panel')).to.equal(null);
    const bubble = root.querySelector<HTMLButtonElement>('.bubble')!;
    bubble.focus(); // intent: starts fetching kb-chat-ui.js
    bubble.click();
    await waitUntil(() => (el.ui as ChatUi | undefined)?.embedder.status === 'ready', 'embedder not ready', {
      timeout: 25_000,
    });
    await el.updateComplete;
    expect(root.querySelector('.panel h2')!.textContent).to.equal('Help');

    root.querySelector('textarea')!.value = 'What is the refund policy?';
    root.querySelector<HTMLButtonElement>('.send')!.click();
    await waitUntil(() => root.querySelector('.message--assistant[data-status="done"]'), 'no answer', {
      timeout: 10_000,
    });
    expect(root.querySelector('.message--assistant .markdown')!.textContent).to.contain('30 days');
    expect(root.querySelectorAll('.sources a')).to.have.length(2);

    const pageUrls = performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname);
    expect(pageUrls).to.include(`/test-results/widget-dist/${manifest.ui}`);
    expect(pageUrls).to.include(`/test-results/widget-dist/${manifest.embedder}`);
    // The fake API is extractive and asks for no CAPTCHA: the chunks for those stay on the server.
    expect(pageUrls.filter((p) => /kb-chat-(generative|captcha)/.test(p))).to.deep.equal([]);
    // Only test code comes from widget/: the element and its worker are the bundles.
    const sources = pageUrls.filter(
      (p) => p.startsWith('/widget/') && !p.startsWith('/widget/test/') && !p.endsWith('.test.ts'),
    );
    expect(sources).to.deep.equal([]);
    const log = await fakeLog();
    expect(log.chat).to.have.length(1);
    expect(log.csp).to.deep.equal([]);
  });
});
