import { describe, expect, it } from 'vitest';
import {
  expectedType,
  holdsType,
  holdsValue,
  QUANTITY_KINDS,
  quantityIn,
  valueAsked,
  type AnswerType,
} from './answer-type.ts';
import type { Unit } from './units.ts';

const unit = (kind: Unit['kind'], markdown: string) => ({ kind, markdown });

describe('expectedType', () => {
  const cases: [string, AnswerType | null][] = [
    ['What CLI command turns on Under Attack Mode?', 'command'],
    ['Which host do healthchecks come from?', 'command'],
    ['My image runs as a non-root user. What do I set?', 'command'],
    ['How long are logs kept on the Hobby plan?', 'quantity'],
    ["What's the lowest hard usage limit I can set?", 'quantity'],
    ['Until when will my railway.toml keep working?', 'date'],
    ['Which Node.js version do I need?', 'date'],
    ['How do I expose my game server over TCP?', 'procedure'],
    ['Which languages can Railpack build?', 'list'],
    ['What information should I include in a support thread?', 'list'],
    ['I already have an account. Can I still use the credits?', 'yesno'],
    ['Why am I charged when my app gets no traffic?', 'definition'],
    ['Tell me about regions', null],
    ['At what chunk size does the build start warning me?', 'quantity'],
    ['Up to what size are assets inlined?', 'quantity'],
  ];
  for (const [question, type] of cases) it(`${question} → ${type}`, () => expect(expectedType(question)).toBe(type));
});

describe('holdsType', () => {
  it('command: a code block, or a code span / UPPER_SNAKE name that is not the question echoed', () => {
    expect(holdsType(unit('code', '```sh\nrailway up\n```'), 'command')).toBe(true);
    expect(holdsType(unit('sentence', 'Set `RAILWAY_RUN_UID=0` on the service.'), 'command')).toBe(true);
    expect(holdsType(unit('sentence', 'Set RAILWAY_DOCKERFILE_PATH to the file.'), 'command')).toBe(true);
    expect(
      holdsType(
        unit('sentence', 'Railway returns the `No start command` error.'),
        'command',
        new Set(['start', 'command']),
      ),
    ).toBe(false);
    expect(holdsType(unit('sentence', 'Commands are run by the CLI.'), 'command')).toBe(false);
  });
  it('quantity: a number with its unit, a price or a share', () => {
    expect(holdsType(unit('sentence', 'Logs are kept for 7 days.'), 'quantity')).toBe(true);
    expect(holdsType(unit('sentence', 'It stays restorable for two days.'), 'quantity')).toBe(true);
    expect(holdsType(unit('sentence', 'Buckets cost $0.015 per GB-month.'), 'quantity')).toBe(true);
    expect(holdsType(unit('table', '| Plan | Retention |\n| - | - |\n| Pro | 30 days |'), 'quantity')).toBe(true);
    expect(holdsType(unit('sentence', 'Logs are kept depending on your plan.'), 'quantity')).toBe(false);
  });
  it('date: a calendar date or a version', () => {
    expect(holdsType(unit('sentence', 'Files work until **2026-12-01**.'), 'date')).toBe(true);
    expect(holdsType(unit('sentence', 'Migrated after July 13, 2026.'), 'date')).toBe(true);
    expect(holdsType(unit('sentence', 'Requires Node.js version 16 or higher.'), 'date')).toBe(true);
    expect(holdsType(unit('sentence', 'Files will stop working soon.'), 'date')).toBe(false);
  });
  it('procedure: numbered steps or the commands; list: a list or a table; table: a table', () => {
    expect(holdsType(unit('list', '1. Open Settings\n2. Click Enable'), 'procedure')).toBe(true);
    expect(holdsType(unit('code', '```sh\nrailway link\n```'), 'procedure')).toBe(true);
    expect(holdsType(unit('list', '- Okta\n- Auth0'), 'procedure')).toBe(false);
    expect(holdsType(unit('list', '- Okta\n- Auth0'), 'list')).toBe(true);
    expect(holdsType(unit('table', '| a |\n| - |\n| b |'), 'list')).toBe(true);
    expect(holdsType(unit('sentence', 'We support Okta and Auth0.'), 'list')).toBe(false);
    expect(holdsType(unit('table', '| a |\n| - |\n| b |'), 'table')).toBe(true);
    expect(holdsType(unit('list', '- a'), 'table')).toBe(false);
  });
  it('yes-no and definition: any sentence can hold them, so no unit is preferred by form', () => {
    expect(holdsType(unit('sentence', 'No, buckets are private.'), 'yesno')).toBe(false);
    expect(holdsType(unit('sentence', 'A bucket is S3-compatible storage.'), 'definition')).toBe(false);
  });
});

describe('valueAsked and holdsValue', () => {
  it('a question saying "default" asks for the default, a quantity or date question for its value', () => {
    expect(valueAsked('Which files does the dev server block by default?', null)).toBe('default');
    expect(valueAsked('How long are logs kept?', 'quantity')).toBe('quantity');
    expect(valueAsked('When do files stop working?', 'date')).toBe('date');
    expect(valueAsked('How do I enable tags?', 'procedure')).toBeNull();
  });
  it('a default holds it only with its value; a quantity by a number with its unit or a numeric default', () => {
    expect(holdsValue(unit('list', '- **Type:** `number`\n- **Default:** `500`'), 'default')).toBe(true);
    expect(holdsValue(unit('sentence', 'It defaults to `dist`.'), 'default')).toBe(true);
    expect(holdsValue(unit('sentence', 'You can change the default behaviour.'), 'default')).toBe(false);
    expect(holdsValue(unit('list', '- **Type:** `number`\n- **Default:** `500`'), 'quantity')).toBe(true);
    expect(holdsValue(unit('sentence', 'The default is `Xenova/all-MiniLM-L6-v2`.'), 'quantity')).toBe(false);
    expect(holdsValue(unit('sentence', 'Logs are kept for 7 days.'), 'quantity')).toBe(true);
    expect(holdsValue(unit('code', '```\ndefault: 5\n```'), 'default')).toBe(false);
  });
});

describe('QUANTITY_KINDS', () => {
  it('tells the kinds of quantity apart, and every kind is a quantity', () => {
    const duration = quantityIn(QUANTITY_KINDS.duration.units);
    const size = quantityIn(QUANTITY_KINDS.size.units);
    const amount = quantityIn(QUANTITY_KINDS.amount.units, true);
    expect(duration.test('Daily backups are kept for 6 days.')).toBe(true);
    expect(duration.test('The model is about 23 MB.')).toBe(false);
    expect(size.test('The model is about 23 MB.')).toBe(true);
    expect(size.test('limited to 50% of the volume')).toBe(true);
    expect(size.test('Daily backups are kept for 6 days.')).toBe(false);
    expect(amount.test('The hard limit is at least $10.')).toBe(true);
    expect(QUANTITY_KINDS.duration.asks.test('How long are they kept?')).toBe(true);
    for (const value of ['6 days', '23 MB', '500 tokens', '$10', '3 replicas'])
      expect(holdsType({ kind: 'sentence', markdown: `It is ${value}.` }, 'quantity')).toBe(true);
  });
});
