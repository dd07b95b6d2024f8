/** A follow-up's answer does not quote the earlier answer again (follow-up-units.ts, extract.ts). */
import { describe, expect, it } from 'vitest';
import type { ChunkMatch } from '../store/types.ts';
import { extractAnswer } from './extract.ts';
import { freshValueOf, mayRepeat, ownWordRanks, rivalOf, ownWords, saidBefore, sameWord } from './follow-up-units.ts';
import { contentWords } from './text.ts';
import { unitsOf } from './units.ts';

const chunk = (id: string, content: string, section: string): ChunkMatch => ({
  chunk_id: id,
  document_id: 'backups',
  document_title: 'Backups',
  document_url: null,
  content,
  meta: { section },
  similarity: 0.5,
});

const LIMITS = chunk(
  'limits',
  "Volume backups have size limitations based on the volume capacity:\n\n- **Manual backups** are limited to 50% of the volume's total size\n- The limit applies to manual, daily and weekly backups kept on every volume",
  'Volume backup limits',
);
const SCHEDULES = chunk(
  'schedules',
  'Backups can be scheduled to run on a daily, weekly or monthly basis.\n\n- **Daily** - Backed up every 24 hours, kept for 6 days\n- **Weekly** - Backed up every 7 days, kept for 1 month',
  'Backup schedules',
);
const EARLIER = extractAnswer('Is there a size limit for manual volume backups?', [LIMITS, SCHEDULES]).text;

describe('saidBefore', () => {
  it('finds a unit the earlier answer quoted, whatever its spacing, and not a short or new one', () => {
    const said = saidBefore(
      'Volume backups have size limitations based on the volume capacity: [1]\n\n- **Manual backups** are  limited',
    );
    expect(said({ markdown: 'Volume backups have size limitations based on the volume capacity:' })).toBe(true);
    expect(said({ markdown: 'Yes.' })).toBe(false);
    expect(said({ markdown: 'Backups can be scheduled to run on a daily basis.' })).toBe(false);
    expect(
      saidBefore(undefined)({ markdown: 'Volume backups have size limitations based on the volume capacity:' }),
    ).toBe(false);
  });
});

describe('extractAnswer for a follow-up', () => {
  it('quotes the new fact instead of the earlier answer when retrieval ranked the earlier passage second', () => {
    expect(EARLIER).toContain('50%');
    const borrowed = ['size', 'limit', 'manual', 'volume', 'backups'];
    const { text } = extractAnswer('How long are the daily ones kept?', [SCHEDULES, LIMITS], {
      borrowed,
      earlierAnswer: EARLIER,
    });
    expect(text).toContain('kept for 6 days');
    expect(text).not.toContain('50%');
  });

  it('quotes the earlier answer again when it is in the passage ranked first (then it is the answer)', () => {
    const { text } = extractAnswer('How long are they limited?', [LIMITS, SCHEDULES], {
      borrowed: ['manual', 'backups'],
      earlierAnswer: EARLIER,
    });
    expect(text).toContain('50%');
  });

  it('scores a repeat at the weight it is given (the sweep tries others through the same call)', () => {
    const followUp = { borrowed: ['size', 'limit', 'manual', 'volume', 'backups'], earlierAnswer: EARLIER };
    const asked = 'How long are the daily ones kept?';
    expect(extractAnswer(asked, [SCHEDULES, LIMITS], followUp).text).not.toContain('50%');
    // At 1 a repeat is not demoted at all: the earlier answer's sentence comes back beside the new fact.
    expect(extractAnswer(asked, [SCHEDULES, LIMITS], { ...followUp, repeatWeight: 1 }).text).toContain('50%');
  });
});

const STARTUP = chunk(
  'startup',
  'The widget shows "Initializing AI…" while the browser downloads and starts the embedding model. The first load can take a few seconds on a slow connection, because the model is about 23 MB; later visits use the browser\'s cache. If the message does not go away, open the network tab.',
  'The widget is stuck on "Initializing AI…"',
);
const BROWSERS = chunk(
  'browsers',
  'The widget needs JavaScript, WebAssembly and module Web Workers, which all of these browsers provide. Older browsers without these features cannot run the embedding model.',
  'Which browsers are supported?',
);

describe('mayRepeat', () => {
  const unit = (markdown: string) => ({ kind: 'sentence' as const, markdown, words: new Set<string>() });
  it('lets a unit holding the kind of value asked be quoted again, not one holding another kind', () => {
    const size = unit('The first load is slow, because the model is about 23 MB.');
    expect(mayRepeat(size, 1, new Set(['big']), 'quantity', 'How big is it?')).toBe(true);
    expect(mayRepeat(size, 1, new Set(['long', 'kept']), 'quantity', 'How long is it kept?')).toBe(false);
    expect(mayRepeat(size, 1, new Set(['change']), 'procedure', 'How do I change it?')).toBe(false);
    expect(mayRepeat(unit('Daily backups are kept for 6 days.'), 1, new Set(['long']), 'quantity', 'How long?')).toBe(
      true,
    );
    const share = unit('Backups are limited to 50% of the volume size.');
    expect(mayRepeat(share, 1, new Set(['big']), 'quantity', 'How big can they be?')).toBe(true);
    expect(mayRepeat(share, 1, new Set(['long']), 'quantity', 'How long are they kept?')).toBe(false);
  });
});

describe('extractAnswer for a follow-up whose value was in the earlier answer', () => {
  const earlier = extractAnswer('Why is the widget stuck on Initializing AI?', [STARTUP, BROWSERS]).text;
  const followUp = { borrowed: ['widget', 'stuck', 'initializing', 'ai'], earlierAnswer: earlier };

  it('quotes the sentence with the size again for "How big is it?"', () => {
    expect(earlier).toContain('about 23 MB');
    const { text, citations } = extractAnswer('How big is it?', [BROWSERS, STARTUP], followUp);
    // First: the answer is the size, not the browser section retrieval ranked above it.
    expect(text.split(' [')[0]).toContain('about 23 MB');
    expect(citations[0]?.chunk_id).toBe('startup');
  });

  it('does not quote it again for a question asking no size', () => {
    const { text } = extractAnswer('Which browsers support it?', [BROWSERS, STARTUP], followUp);
    expect(text).not.toContain('about 23 MB');
  });
});

describe('extractAnswer for a follow-up asking a new value of the dimension it names', () => {
  const VOLUME = chunk(
    'volume',
    'When you cancel a plan, we keep your volume data for a grace period.\n\n| Plan | Days kept |\n| --- | --- |\n| Hobby | 60 days after cancellation |\n| Pro | 90 days after cancellation |',
    'Volume data after cancellation',
  );
  const IMAGES = chunk(
    'images',
    'Images of removed deployments are retained for a while; rolling back is possible while the image is retained.\n\n| Plan | Rollback window |\n| --- | --- |\n| Hobby | 72 hours |\n| Pro | 120 hours |',
    'Image retention policy',
  );
  const earlier = extractAnswer('If I cancel my plan, how long do you keep my volume data?', [VOLUME, IMAGES]).text;
  const followUp = { borrowed: ['cancel', 'plan', 'keep', 'volume', 'data'], earlierAnswer: earlier };

  it('quotes the value not given yet, not the earlier table that holds the plan and a duration too', () => {
    expect(earlier).toContain('90 days after cancellation');
    // Retrieval ranked the earlier answer's section first, as the thread search does.
    const { text } = extractAnswer('And on Pro, how long can I roll back?', [VOLUME, IMAGES], followUp);
    expect(text).toContain('120 hours');
    expect(text).not.toContain('90 days after cancellation');
  });

  it('still quotes the earlier value when no other unit holds one of the dimension asked', () => {
    const { text } = extractAnswer('And on Pro, how long is it?', [VOLUME], followUp);
    expect(text).toContain('90 days after cancellation');
  });
});

describe('freshValueOf', () => {
  const unit = (markdown: string) => ({ kind: 'sentence' as const, markdown, words: new Set<string>() });
  const days = unit('Volume data is kept for 90 days.');
  const hours = unit('Images are retained for 120 hours.');
  const said = (u: { markdown: string }) => u.markdown === days.markdown;
  it('finds a value of the dimension asked only in a unit not said before, and only when one is named', () => {
    expect(freshValueOf([days, hours], said, new Set(['long']), 'quantity', 'How long can I roll back?')).toBe(true);
    expect(freshValueOf([days], said, new Set(['long']), 'quantity', 'How long can I roll back?')).toBe(false);
    expect(freshValueOf([days, hours], said, new Set(['change']), 'procedure', 'How do I change it?')).toBe(false);
  });
});

describe('ownWordRanks: on the thread page, the chunks holding the follow-up own words weigh first', () => {
  const trial = (id: string, content: string, section: string): ChunkMatch => ({
    ...chunk(id, content, section),
    document_id: 'free-trial',
    document_title: 'Free Trial',
  });
  const GRANT = trial(
    'grant',
    'The longevity of your one-time trial grant depends on how many resources you consume within the 30 day period you sign-up for the platform. The more resources you deploy, the greater the consumption.',
    'FAQs › How far will the $5 one-time trial grant last?',
  );
  const RESOURCES = trial(
    'resources',
    'During the trial, you can access the same features as on the Hobby plan, however you will be limited to 1 GB of RAM and shared vCPU cores. Additionally, your projects will be limited to 5 services per project.',
    'FAQs › What resources can I access during the trial?',
  );
  const UPGRADE = trial(
    'upgrade',
    'If you upgrade to a plan while you still have a credit balance from the Trial, the remaining balance will carry over to your new plan.',
    'FAQs › What happens to my credits when I upgrade?',
  );
  const OTHER = {
    ...chunk('other', 'Every project can hold many services, each with its own variables.', 'Projects'),
    document_id: 'projects',
  };
  const earlierAnswer = extractAnswer('If I upgrade before my trial credits run out, do I lose the rest?', [
    UPGRADE,
  ]).text;
  const followUp = { borrowed: ['upgrade', 'trial', 'credits', 'run', 'lose'], earlierAnswer };
  const QUESTION = 'How many services can I have during it?';

  it('quotes the section that says how many services, not the credits FAQ retrieval ranked first', () => {
    const chunks = [GRANT, RESOURCES, UPGRADE];
    expect(extractAnswer(QUESTION, chunks, followUp).text).not.toContain('5 services per project');
    const { text } = extractAnswer(QUESTION, chunks, { ...followUp, pages: ['free-trial'] });
    // Quoted first, cited [1].
    expect(text.split('[1]')[0]).toContain('limited to 5 services per project');
  });

  it('moves only chunks of the thread pages, and none when the first holds an own word', () => {
    const units = (c: ChunkMatch) => unitsOf(c.content, new Set());
    const heads = (c: ChunkMatch) => contentWords(c.meta.section?.split(' › ').pop() ?? '');
    const ranks = (chunks: ChunkMatch[], pages: string[], q = QUESTION) =>
      ownWordRanks(
        chunks.map(units),
        chunks.map(heads),
        chunks.map((c) => c.document_id),
        new Set(pages),
        q,
      );
    expect(ranks([GRANT, OTHER, RESOURCES], ['free-trial'])).toEqual([2, 1, 0]);
    expect(ranks([GRANT, OTHER, RESOURCES], [])).toEqual([0, 1, 2]);
    expect(ranks([RESOURCES, GRANT], ['free-trial'])).toEqual([0, 1]);
    // "many" says which dimension is asked: the grant FAQ's "how many resources" is not the services asked.
    expect(ranks([GRANT, RESOURCES], ['free-trial'], 'How many can I have?')).toEqual([0, 1]);
  });

  it('matches a word and its longer form the light stemmer leaves apart', () => {
    expect(sameWord('nam', 'name')).toBe(true);
    expect(sameWord('capital', 'capitaliz')).toBe(true);
    expect(sameWord('port', 'portable')).toBe(false);
    expect(ownWords('How many services can I have during it?')).toEqual(['service']);
  });
});

describe('a repeat holding an own word gives way to a unit holding more of them', () => {
  const SHARING = {
    ...chunk(
      'sharing',
      'When search sharing is activated, a share button is rendered next to the reset button, which allows to deep link to the current search query and result.\n\nWhen a user clicks the share button, the URL is automatically copied to the clipboard.',
      'Search sharing',
    ),
    document_id: 'search',
  };
  const earlier = extractAnswer('Can readers share a link to their search?', [SHARING]).text;

  it('quotes the sentence about the click, not the button sentence quoted just before', () => {
    expect(earlier).toContain('share button is rendered');
    expect(earlier).not.toContain('copied to the clipboard');
    const { text } = extractAnswer('What happens when they click that button?', [SHARING], {
      borrowed: ['share', 'link', 'search'],
      earlierAnswer: earlier,
    });
    expect(text.split(' [1]')[0]).toContain('copied to the clipboard');
    expect(text).not.toContain('share button is rendered');
  });

  it('lets a repeat be quoted again unless another unit holds its own words and more', () => {
    const [rendered, clicks] = unitsOf(SHARING.content, new Set());
    const own = new Set(contentWords('What happens when they click that button?'));
    const said = (u: { markdown: string }) => u.markdown === rendered!.markdown;
    expect(rivalOf([rendered!, clicks!], said, own)(rendered!)).toBe(true);
    expect(mayRepeat(rendered!, 0, own, null, '', false, rivalOf([rendered!, clicks!], said, own))).toBe(false);
    // A unit holding another own word only ("happens") is no rival to a repeat holding "click".
    const happens = unitsOf('Here is what happens next.', new Set())[0]!;
    const clicking = unitsOf('Clicking a citation opens the source page.', new Set())[0]!;
    const onlyClicking = (u: { markdown: string }) => u.markdown === clicking.markdown;
    expect(rivalOf([clicking, happens], onlyClicking, own)(clicking)).toBe(false);
    expect(mayRepeat(clicking, 0, own, null, '', false, rivalOf([clicking, happens], onlyClicking, own))).toBe(true);
  });
});
