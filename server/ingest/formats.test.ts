/** HTML and PDF readers on documents the tests write or generate (pdf-lib), through to chunks. */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { chunkDocument } from './chunker.ts';
import { createEmbedder, type Embedder } from './embedder.ts';
import { MODEL, MODEL_DIR } from './fixtures/paths.ts';
import { parseHtml } from './html.ts';
import { parsePdf } from './pdf.ts';

let embedder: Embedder;
beforeAll(async () => {
  embedder = await createEmbedder({ model: MODEL, modelDir: MODEL_DIR });
});

const HTML = `<!doctype html>
<html lang="de-CH"><head>
  <title>Billing help</title>
  <meta name="description" content="Invoices and refunds.">
  <meta property="article:published_time" content="2026-03-01T10:00:00Z">
  <link rel="canonical" href="/help/billing">
  <style>.x { color: red }</style>
  <script>window.secret = "SCRIPT TEXT";</script>
</head><body>
  <nav><a href="/">Home</a> NAVIGATION LINKS</nav>
  <header>SITE HEADER</header>
  <main>
    <h1>Billing</h1>
    <p>Invoices are sent on the <strong>first</strong> day of each month &amp; paid by card.</p>
    <h2 id="refund-policy">Refunds</h2>
    <p>Refunds are processed within ten business days. See <a href="https://example.com/terms">the terms</a>.</p>
    <ul><li>Annual plans: pro rata</li><li>Monthly plans: none</li></ul>
    <pre><code class="language-sh">curl https://api.example.com/refunds</code></pre>
    <table><tr><th>Plan</th><th>Price</th></tr><tr><td>Pro</td><td>$20</td></tr></table>
    <div hidden>HIDDEN TEXT</div>
    <aside>RELATED ARTICLES</aside>
  </main>
  <footer>FOOTER TEXT</footer>
</body></html>`;

describe('parseHtml', () => {
  const doc = parseHtml(HTML, { fileTitle: 'billing', url: 'https://help.example.com/help/billing.html' });
  const text = doc.sections.flatMap((s) => s.blocks.map((b) => b.markdown)).join('\n');

  it('reads title, description, canonical url, language and date from the head', () => {
    expect(doc).toMatchObject({
      title: 'Billing help',
      description: 'Invoices and refunds.',
      url: 'https://help.example.com/help/billing',
      format: 'html',
      language: 'de-CH',
      publishedAt: '2026-03-01T10:00:00.000Z',
    });
  });

  it('keeps the main content as Markdown under its headings, dropping scripts, styles and navigation', () => {
    expect(doc.sections.map((s) => [s.headingPath.join(' › '), s.anchor])).toEqual([
      ['Billing', 'billing'],
      ['Billing › Refunds', 'refund-policy'],
    ]);
    expect(text).toContain('Invoices are sent on the **first** day of each month & paid by card.');
    expect(text).toContain('See [the terms](https://example.com/terms).');
    expect(text).toContain('- Annual plans: pro rata\n- Monthly plans: none');
    expect(text).toContain('```sh\ncurl https://api.example.com/refunds\n```');
    expect(text).toContain('| Plan | Price |\n| --- | --- |\n| Pro | $20 |');
    for (const noise of [
      'SCRIPT TEXT',
      'color: red',
      'NAVIGATION',
      'SITE HEADER',
      'HIDDEN TEXT',
      'RELATED',
      'FOOTER',
    ]) {
      expect(text).not.toContain(noise);
    }
  });

  it('gives every block its offsets in the HTML source', () => {
    const refunds = doc.sections[1]!.blocks[0]!;
    expect(HTML.slice(refunds.start, refunds.end)).toMatch(/^<p>Refunds are processed[\s\S]*<\/p>$/);
    const chunks = chunkDocument(doc, { countTokens: (t) => embedder.countTokens(t) });
    expect(chunks[1]!.meta).toMatchObject({
      url: 'https://help.example.com/help/billing#refund-policy',
      char_start: refunds.start,
    });
  });
});

async function makePdf(pages: { heading?: string; paragraphs: string[] }[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle('Employee handbook');
  pdf.setLanguage('en-GB');
  pdf.setCreationDate(new Date('2025-06-15T00:00:00Z'));
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const { heading, paragraphs } of pages) {
    const page = pdf.addPage([595, 842]);
    let y = 790;
    if (heading) {
      page.drawText(heading, { x: 50, y, size: 20, font });
      y -= 40;
    }
    for (const paragraph of paragraphs) {
      // Wrapped at ~80 characters per line, 14 pt apart; paragraphs 28 pt apart.
      const lines = paragraph.match(/.{1,80}(\s|$)/g) ?? [paragraph];
      for (const line of lines) {
        page.drawText(line.trim(), { x: 50, y, size: 11, font });
        y -= 14;
      }
      y -= 14;
    }
  }
  return pdf.save();
}

describe('parsePdf', () => {
  const filler = (topic: string, n: number) =>
    Array.from(
      { length: n },
      (_, i) => `Sentence ${i} explains the ${topic} policy in plain words for every employee.`,
    ).join(' ');

  it('puts a page number on every chunk, sections from large headings, metadata from the document', async () => {
    const bytes = await makePdf([
      {
        heading: 'Holidays',
        paragraphs: ['Every employee gets twenty-five days of paid holiday per year.', filler('holiday', 30)],
      },
      { paragraphs: [filler('carry-over', 10)] },
      { heading: 'Expenses', paragraphs: ['Expenses are reimbursed within five working days of approval.'] },
    ]);
    const doc = await parsePdf(bytes, { fileTitle: 'handbook', url: null });
    expect(doc).toMatchObject({
      title: 'Employee handbook',
      format: 'pdf',
      language: 'en-GB',
      publishedAt: '2025-06-15T00:00:00.000Z',
    });
    const chunks = chunkDocument(doc, { countTokens: (t) => embedder.countTokens(t) });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => typeof c.meta.page === 'number')).toBe(true);
    expect(chunks[0]).toMatchObject({ meta: { page: 1, section: 'Holidays' } });
    expect(chunks[0]!.content).toContain('twenty-five days of paid holiday');
    // The heading's section continues on page 2, which has no heading of its own.
    expect(chunks.find((c) => c.content.includes('carry-over'))!.meta).toMatchObject({ page: 2, section: 'Holidays' });
    expect(chunks.at(-1)!.meta).toMatchObject({ page: 3, section: 'Expenses' });
    for (const c of chunks) expect(embedder.countTokens(c.embedText)).toBeLessThanOrEqual(256);
    // Neighbours overlap: a split paragraph's next chunk starts with the previous chunk's last sentences.
    const holiday = chunks.filter((c) => c.meta.page === 1 && c.content.includes('holiday policy'));
    expect(holiday.length).toBeGreaterThan(1);
    const [firstSentence] = holiday[1]!.content.split(/(?<=\.) /);
    const lastSentence = holiday[0]!.content.split(/(?<=\.) /).at(-1)!;
    expect(holiday[0]!.content).toContain(firstSentence);
    expect(holiday[1]!.content).toContain(lastSentence);
  });

  it('fails clearly on a file that is not a PDF', async () => {
    await expect(parsePdf(new TextEncoder().encode('hello'), { fileTitle: 'x', url: null })).rejects.toThrow(
      /not a readable PDF/,
    );
  });
});
