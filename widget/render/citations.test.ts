/** Citations UX in Chromium against the fake API. */
import { expect, waitUntil } from '@open-wc/testing';
import { ask, createWidget, lastAssistant, openKeyword, resetFake, shadow, waitForAnswerEnd } from '../test/helpers.ts';
import { sourceHref } from './sources.ts';

describe('citations', () => {
  beforeEach(resetFake);

  it('turns [n] into badges with a hover/focus preview of title and excerpt', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    const badges = [...lastAssistant(el)!.querySelectorAll<HTMLButtonElement>('.cite__badge')];
    expect(badges.map((b) => b.textContent)).to.deep.equal(['1', '2']);
    expect(badges[0]!.getAttribute('aria-label')).to.equal('Source 1');
    const preview = shadow(el).getElementById(badges[0]!.getAttribute('aria-describedby')!)!;
    expect(preview.getAttribute('role')).to.equal('tooltip');
    expect(preview.textContent).to.contain('Refund policy');
    expect(preview.textContent).to.contain('Refunds are accepted within 30 days of purchase');
    expect(getComputedStyle(preview).display).to.equal('none');
    badges[0]!.focus();
    expect(getComputedStyle(preview).display).to.equal('block');
  });

  it('clicking a badge reveals and focuses its source; "Show more sources" beyond 3', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'many sources please');
    await waitForAnswerEnd(el);
    const answer = lastAssistant(el)!;
    expect(answer.querySelectorAll('.source')).to.have.length(3);
    const more = answer.querySelector<HTMLButtonElement>('[part="more-sources"]')!;
    expect(more.textContent!.trim()).to.equal('Show more sources (2)');
    expect(more.getAttribute('aria-expanded')).to.equal('false');
    more.click();
    await el.updateComplete;
    expect(answer.querySelectorAll('.source')).to.have.length(5);
    expect(answer.querySelector('[part="answer-footer"]')!.textContent).to.contain('Grounded in 5 sources');
    more.click();
    await el.updateComplete;
    expect(answer.querySelectorAll('.source')).to.have.length(3);

    // The fake's answer cites [1] and [2]; a badge click on [2] focuses source 2's link.
    answer.querySelectorAll<HTMLButtonElement>('.cite__badge')[1]!.click();
    await waitUntil(
      () => shadow(el).activeElement?.closest('.source')?.getAttribute('data-n') === '2',
      'source not focused',
    );
    expect(shadow(el).activeElement!.getAttribute('part')).to.equal('source-link');
  });

  it('expands the full chunk text of a source (GET /api/chunks/:id), rendered safely', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    const toggle = lastAssistant(el)!.querySelector<HTMLButtonElement>('[part="source-toggle"]')!;
    expect(toggle.getAttribute('aria-expanded')).to.equal('false');
    toggle.click();
    await waitUntil(
      () => lastAssistant(el)!.querySelector('.source__passage')?.textContent?.includes('original packaging'),
      'no passage',
      {
        timeout: 5_000,
      },
    );
    expect(toggle.getAttribute('aria-expanded')).to.equal('true');
    expect(lastAssistant(el)!.querySelector('.source__passage p:not(.md-heading) strong')!.textContent).to.equal(
      '30 days',
    );
  });

  it('Copy puts the answer on the clipboard without markers or sources', async () => {
    const el = await createWidget();
    await openKeyword(el);
    await ask(el, 'What is the refund policy?');
    await waitForAnswerEnd(el);
    let copied = '';
    const original = navigator.clipboard.writeText;
    navigator.clipboard.writeText = async (text: string) => void (copied = text);
    try {
      lastAssistant(el)!.querySelector<HTMLButtonElement>('[part="copy-button"]')!.click();
      await waitUntil(() => copied, 'nothing copied');
    } finally {
      navigator.clipboard.writeText = original;
    }
    expect(copied).to.equal('Refunds are accepted within 30 days of purchase. See also the warranty terms.');
    await el.updateComplete;
    expect(lastAssistant(el)!.querySelector('[part="copy-button"]')!.textContent!.trim()).to.equal('Copied');
  });

  it('deep-links web pages to the quoted passage with a text fragment, and never links javascript:', () => {
    const base = { n: 1, chunk_id: 'c', document_id: 'd', title: 't', page: null, section: null, similarity: 1 };
    expect(
      sourceHref({ ...base, url: 'https://example.com/a', excerpt: 'Refunds are accepted - within 30 days, always.' }),
    ).to.equal('https://example.com/a#:~:text=Refunds%20are%20accepted%20%2D%20within%2030');
    expect(sourceHref({ ...base, url: 'https://example.com/a#top', excerpt: 'Two words here' })).to.equal(
      'https://example.com/a#top:~:text=Two%20words%20here',
    );
    expect(sourceHref({ ...base, url: 'https://example.com/a' })).to.equal('https://example.com/a');
    expect(sourceHref({ ...base, url: 'javascript:alert(1)', excerpt: 'x y z' })).to.equal(null);
    expect(sourceHref({ ...base, url: 'data:text/html,x' })).to.equal(null);
  });
});
