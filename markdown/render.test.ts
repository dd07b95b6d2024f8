import { expect } from '@open-wc/testing';
import { renderMarkdown } from './render.ts';

/** Parse the sanitized HTML without attaching it, so nothing can execute while we inspect it. */
function parse(markdown: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = renderMarkdown(markdown);
  return template.content;
}

describe('renderMarkdown', () => {
  it('renders ordinary Markdown', () => {
    const html = renderMarkdown('Refunds within **30 days** [1].\n\n- one\n- two\n\n`code`');
    expect(html).to.contain('<strong>30 days</strong>');
    expect(html).to.contain('<li>one</li>');
    expect(html).to.contain('<code>code</code>');
    expect(html).to.contain('[1]');
  });

  it('shows raw HTML from content as text, never as elements', () => {
    const fragment = parse('Hi <img src=x onerror=alert(1)> and <script>alert(2)</script> <b onclick="x()">b</b>');
    expect(fragment.querySelector('img, script, b, [onerror], [onclick]')).to.equal(null);
    expect(fragment.textContent).to.contain('<img src=x onerror=alert(1)>');
  });

  it('drops javascript:, data: and vbscript: links but keeps their text', () => {
    for (const href of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<b>x</b>',
      'vbscript:msgbox(1)',
    ]) {
      const link = parse(`[click](${href})`).querySelector('a');
      expect(link, href).to.not.equal(null);
      expect(link!.hasAttribute('href'), href).to.equal(false);
      expect(link!.textContent).to.equal('click');
    }
  });

  it('opens safe links in a new tab without an opener', () => {
    const link = parse('[docs](https://example.com/docs)').querySelector('a')!;
    expect(link.getAttribute('href')).to.equal('https://example.com/docs');
    expect(link.getAttribute('target')).to.equal('_blank');
    expect(link.getAttribute('rel')).to.equal('noopener noreferrer');
  });

  it('renders images as their alt text (no requests to third parties)', () => {
    const fragment = parse('![a chart](https://tracker.example/pixel.gif)');
    expect(fragment.querySelector('img')).to.equal(null);
    expect(fragment.textContent).to.contain('a chart');
  });

  it('copes with partial Markdown mid-stream', () => {
    expect(() => renderMarkdown('**unfinished [link](http')).to.not.throw();
    expect(() => renderMarkdown('```js\nconst a =')).to.not.throw();
  });
});
