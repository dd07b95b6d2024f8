/** A follow-up's answer does not quote the earlier answer again (follow-up-units.ts, extract.ts). */
import { describe, expect, it } from 'vitest';
import type { ChunkMatch } from '../store/types.ts';
import { extractAnswer } from './extract.ts';
import { saidBefore } from './follow-up-units.ts';

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
});
