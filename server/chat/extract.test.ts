import { describe, expect, it } from 'vitest';
import { chunkMatch } from '../testing/chunks.ts';
import { extractAnswer, MAX_RELATED } from './extract.ts';

const make = chunkMatch;

const refunds = make(
  'c1',
  [
    'Our plans renew monthly. Refunds are available within 14 days of a charge.',
    'To request a refund, run this from the billing folder:',
    '',
    '```sh',
    'refund --all',
    '```',
    '',
    'Refund rules:',
    '',
    '- Annual plans are refunded pro rata.',
    '- Credits are never refunded.',
  ].join('\n'),
  {
    section: 'Billing › Refunds',
    heading_path: ['Billing', 'Refunds'],
    page: 3,
    url: 'https://docs.example/billing#refunds',
  },
  'd1',
  0.71,
);

describe('extractAnswer', () => {
  it('quotes the command with the sentence that introduces it', () => {
    const answer = extractAnswer('How do I request a refund from the command line?', [refunds]);
    expect(answer.text).toContain(
      'To request a refund, run this from the billing folder: [1]\n\n```sh\nrefund --all\n```',
    );
    expect(answer.text).not.toContain('Our plans renew monthly.');
  });

  it('a question about the rules gets the list and its lead-in, the marker closing the list', () => {
    const answer = extractAnswer('What are the refund rules?', [refunds]);
    expect(answer.text).toContain(
      'Refund rules: [1]\n\n- Annual plans are refunded pro rata.\n- Credits are never refunded.',
    );
  });

  it('a one-sentence answer stays one sentence: units far below the best are not quoted', () => {
    const chunk = make(
      'a',
      'The city has a large port. The city has a port and a city hall.\n\nThe Normans conquered the city in 1066.\n\nThe city is old.',
    );
    const answer = extractAnswer('When did the Normans conquer the city?', [chunk]);
    expect(answer.text).toBe('The Normans conquered the city in 1066. [1]');
  });

  it('the best sentence brings the rest of its thought: the next sentences of its paragraph', () => {
    const chunk = make(
      't',
      'Intro text here.\n\nIf every question gets the reply "The knowledge base is empty." no documents were indexed. Run the ingest command. Then restart.',
    );
    const answer = extractAnswer('Every question gets "The knowledge base is empty". Why?', [chunk]);
    expect(answer.text).toBe(
      'If every question gets the reply "The knowledge base is empty." no documents were indexed. [1] Run the ingest command. [1] Then restart. [1]',
    );
  });

  it('a section whose heading asks the question answers with its opening', () => {
    const browsers = make(
      'b',
      'kb-chat supports current versions of Chrome, Edge, Firefox and Safari. The widget needs JavaScript and WebAssembly.',
      {
        section: 'Troubleshooting › Which browsers are supported?',
        heading_path: ['Troubleshooting', 'Which browsers are supported?'],
      },
      'd1',
      0.6,
    );
    const model = make('m', 'The embedding model is loaded by the browser on first use.', {}, 'd2', 0.55);
    const answer = extractAnswer('Which browsers are supported?', [model, browsers]);
    expect(answer.text.startsWith('kb-chat supports current versions of Chrome, Edge, Firefox and Safari. [1]')).toBe(
      true,
    );
    expect(answer.citations.map((c) => c.chunk_id)).toEqual(['b']);
  });

  it('cites exactly the quoted sources, numbered by first appearance; the rest are related, unnumbered', () => {
    const chunks = [
      make('2', 'Refunds take five days to arrive.', { section: 'A › Refunds' }, 'd1', 0.9),
      make('3', 'Refunds take five business days.', { section: 'B' }, 'd2', 0.8),
      make('1', 'Alpha says nothing useful here.', { section: 'A › Intro' }, 'd1', 0.7),
      ...['4', '5', '6', '7'].map((id) => make(id, `Doc ${id} mentions weather.`, {}, `d${id}`, 0.6)),
    ];
    // The second chunk has the rarer word ("business") but is discounted for its rank: both are quoted.
    const { citations, related, text } = extractAnswer('Do refunds take business days?', chunks);
    expect(citations.map((c) => [c.n, c.chunk_id])).toEqual([
      [1, '2'],
      [2, '3'],
    ]);
    expect(text).toBe('Refunds take five days to arrive. [1] Refunds take five business days. [2]');
    expect(related.map((r) => r.chunk_id)).toEqual(['1', '4', '5'].slice(0, MAX_RELATED));
    expect(related[0]).toEqual({
      chunk_id: '1',
      document_id: 'd1',
      title: 'Doc d1',
      page: null,
      section: 'A › Intro',
      url: null,
    });
  });

  it('gives each citation title, page, section, link and an excerpt starting at the quoted sentence', () => {
    const { citations } = extractAnswer('How long are refunds available?', [refunds]);
    expect(citations).toEqual([
      {
        n: 1,
        chunk_id: 'c1',
        document_id: 'd1',
        title: 'Doc d1',
        page: 3,
        section: 'Billing › Refunds',
        url: 'https://docs.example/billing#refunds',
        similarity: 0.71,
        excerpt: expect.stringMatching(/^Refunds are available within 14 days of a charge\. To request a refund/),
      },
    ]);
  });

  it('prefers a sentence that answers over one that only points elsewhere', () => {
    const faq = make(
      'f',
      'Please refer to [Pricing -> Refunds](/pricing/refunds).',
      { heading_path: ['How do I request a refund?'] },
      'faq',
      0.5,
    );
    const page = make('r', 'Refunds are for new customers who no longer wish to use Railway.', {}, 'refunds', 0.45);
    const answer = extractAnswer('How do refunds work?', [faq, page]);
    expect(answer.text).toBe('Refunds are for new customers who no longer wish to use Railway. [1]');
    expect(answer.related.map((r) => r.chunk_id)).toEqual(['f']);
  });

  it('never exceeds three sentences and one block, whatever matches', () => {
    const many = make(
      'x',
      [
        'Deploy one. Deploy two. Deploy three. Deploy four.',
        '```',
        'deploy a',
        '```',
        '',
        '- deploy b',
        '',
        '| deploy | c |',
        '| - | - |',
        '| deploy | d |',
      ].join('\n'),
    );
    const { text } = extractAnswer('deploy', [many]);
    const blocks =
      (text.match(/^```/gm) ?? []).length / 2 + (text.match(/^- /gm) ? 1 : 0) + (text.match(/^\|/m) ? 1 : 0);
    const sentences =
      text
        .split('\n\n')
        .filter((p) => !/^(```|- |\||\[\d\]$)/.test(p))
        .join(' ')
        .match(/\[\d\]/g)?.length ?? 0;
    expect(blocks).toBeLessThanOrEqual(1);
    expect(sentences).toBeLessThanOrEqual(3);
  });

  it('still answers from the best chunk when no unit shares a word with the question', () => {
    const answer = extractAnswer('zzz', [
      make('s', 'Support answers within one business day.\n\nRefund questions go to billing.'),
    ]);
    expect(answer.text).toBe('Support answers within one business day. [1]');
  });

  it('a code block without a lead-in gets its marker on its own line after the block', () => {
    const answer = extractAnswer('brew install railway', [
      make('h', '```sh\nbrew install railway\n```', { heading_path: ['Homebrew'] }),
    ]);
    expect(answer.text).toBe('```sh\nbrew install railway\n```\n\n[1]');
  });
});

describe('extractAnswer: the fact asked', () => {
  it('a "how long" question gets the duration over the intro that repeats its words', () => {
    const logs = make(
      'l',
      'Logs in the log explorer are kept searchable for every plan.\n\nOn Hobby, entries stay for 7 days.',
      { section: 'Logs' },
    );
    const answer = extractAnswer('How long are logs kept in the log explorer on Hobby?', [logs]);
    expect(answer.text).toContain('On Hobby, entries stay for 7 days. [1]');
  });

  it('a "which command" question gets the code span over prose about the command', () => {
    const cli = make(
      'c',
      'The CLI can log in from a terminal.\n\nWithout a browser, use `railway login --browserless`.',
      {},
    );
    const answer = extractAnswer('Which command logs in to the CLI from a terminal without a browser?', [cli]);
    expect(answer.text).toContain('`railway login --browserless`');
  });

  it('a "which …" question gets the list of names, from the next chunk', () => {
    const intro = make('s', 'SAML SSO is on Enterprise.', { section: 'SAML' }, 'd1', 0.7);
    const list = make('p', 'Identity providers:\n\n- Okta\n- JumpCloud', { section: 'SAML › Providers' }, 'd1', 0.6);
    const answer = extractAnswer('Which identity providers does SAML SSO connect?', [intro, list]);
    expect(answer.text).toContain('- Okta\n- JumpCloud');
  });

  it('under a heading that asks the question, the section opening is quoted first', () => {
    const intro = make(
      'i',
      'Moving a service with a volume to another region causes downtime.',
      { section: 'Regions' },
      'd1',
      0.7,
    );
    const faq = make(
      'q',
      'No, the service keeps running.',
      {
        section: 'Regions › Does moving a service to another region cause downtime?',
        heading_path: ['Regions', 'Does moving a service to another region cause downtime?'],
      },
      'd1',
      0.6,
    );
    const answer = extractAnswer('Will moving my service to another region cause downtime?', [intro, faq]);
    expect(answer.text.startsWith('No, the service keeps running. [1]')).toBe(true);
  });

  it('an FAQ title (a bold line) is the heading of the answer after it, never quoted itself', () => {
    const faq = make(
      't',
      '**Can I transfer a domain into Railway?**\n\nNot yet. Add it as a custom domain instead.',
      {},
    );
    const answer = extractAnswer('Can I transfer my domain into Railway?', [faq]);
    expect(answer.text).not.toContain('**Can I transfer');
    expect(answer.text.startsWith('Not yet. [1]')).toBe(true);
  });

  it('a "how do I" question gets the numbered steps from another section of the answering page', () => {
    const intro = make(
      'i',
      'Webhooks tell your app about deployment status changes. They are configured per project.',
      { section: 'Webhooks' },
      'd1',
      0.7,
    );
    const steps = make(
      's',
      'Complete the following steps:\n\n1. Open the project.\n2. Navigate to the Webhooks tab.',
      { section: 'Webhooks › Setup' },
      'd1',
      0.6,
    );
    const other = make('o', '1. Open the billing page.\n2. Add a card.', { section: 'Billing' }, 'd2', 0.5);
    const answer = extractAnswer('How do I get told about deployment status changes with a webhook?', [
      intro,
      steps,
      other,
    ]);
    expect(answer.text).toContain('2. Navigate to the Webhooks tab.');
    expect(answer.text).not.toContain('Add a card');
  });

  it('a sentence that points back with "that <noun>" brings the sentence naming it', () => {
    const hc = make(
      'h',
      'Healthchecks are sent to your service. Railway uses the hostname `healthcheck.railway.app` for them. If your app rejects requests from that hostname, healthchecks fail with status 400.\n\nOther text about deploys.',
      {},
    );
    const answer = extractAnswer('My healthcheck fails with status 400 because the app rejects requests', [hc]);
    expect(answer.text).toContain(
      'Railway uses the hostname `healthcheck.railway.app` for them. [1] If your app rejects',
    );
  });
});

describe('the sentence that holds the value', () => {
  const option = (extra = '') =>
    make(
      'opt',
      [
        'Limit for chunk size warnings (in kB). It is compared against the uncompressed chunk size.',
        extra,
        '',
        'Raise it when large chunks are expected.',
        '',
        '- **Type:** `number`',
        '- **Default:** `500`',
      ].join('\n'),
      {
        section: 'Build Options › build.chunkSizeWarningLimit',
        heading_path: ['Build Options', 'build.chunkSizeWarningLimit'],
      },
    );
  it('a question asking for a number gets the unit of the section holding it, not only the description', () => {
    const answer = extractAnswer('At what chunk size does the build start warning me?', [option()]);
    expect(answer.text).toContain('**Default:** `500`');
    expect(answer.text).toContain('Limit for chunk size warnings');
  });
  it('a block quoted so far gives way to the block holding the value', () => {
    const note = ['', '> **Note**', '>', '> Chunk size warnings are shown for each chunk over the limit.'].join('\n');
    const asked = 'At what chunk size does the build start warning me?';
    expect(extractAnswer('Are chunk size warnings shown for each chunk?', [option(note)]).text).toContain('> **Note**');
    const answer = extractAnswer(asked, [option(note)]);
    expect(answer.text).toContain('`500`');
    expect(answer.text).not.toContain('> **Note**');
  });
  it('a question asking for no value is answered as before', () => {
    const answer = extractAnswer('Why does the build compare the uncompressed chunk size?', [option()]);
    expect(answer.text).toContain('Limit for chunk size warnings');
    expect(answer.text).not.toContain('`500`');
  });
});

describe('a note gives way to the block holding the answer type', () => {
  const footer = make(
    'footer',
    [
      'The footer displays a _Made with_ notice to denote how the site was generated. The notice can be removed with the following option via `mkdocs.yml`:',
      '',
      '```yaml',
      'extra:',
      '  generator: false',
      '```',
      '',
      '> **Please read this before removing the generator notice**',
      '>',
      '> The subtle Made with notice in the footer is one of the reasons why this project is so popular. Before removing the notice please consider the work that went into it.',
    ].join('\n'),
    { section: 'Footer › Generator notice', heading_path: ['Footer', 'Generator notice'] },
  );
  it('"how do I…" gets the configuration, not the aside', () => {
    const answer = extractAnswer('How do I remove the Made with notice from the footer?', [footer]);
    expect(answer.text).toContain('generator: false');
    expect(answer.text).not.toContain('Please read this');
  });
  it('a question wanting no block type keeps the note', () => {
    const answer = extractAnswer('Why is the Made with notice in the footer so important?', [footer]);
    expect(answer.text).toContain('Please read this');
  });
});
