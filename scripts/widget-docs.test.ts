/**
 * The widget's reference cannot drift: custom-elements.json must be what the analyzer makes of the element's
 * JSDoc today, and docs/widget.md's reference block what scripts/widget-docs.mjs renders from that manifest.
 * When either fails, run `npm run docs:widget` and commit both files.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BEGIN, DOC, END, MANIFEST, REACT, detailInterfaces, expected, renderReference } from './widget-docs.mjs';

const ROOT = join(import.meta.dirname, '..');
const read = (file: string) => readFile(join(ROOT, file), 'utf8');

interface Named {
  name?: string;
}
interface Declaration {
  tagName?: string;
  attributes?: Named[];
  events?: Named[];
  cssParts?: Named[];
  cssProperties?: Named[];
}

describe('the widget reference (npm run docs:widget)', () => {
  it(`${MANIFEST} is what the analyzer makes of the JSDoc of the element`, async () => {
    const [manifest] = await expected();
    expect(await read(MANIFEST), `${MANIFEST} is stale: run npm run docs:widget`).toBe(manifest);
  });

  it(`${REACT} (kb-chat/react's properties and events) is generated from ${MANIFEST}`, async () => {
    const [, , react] = await expected();
    expect(await read(REACT), `${REACT} is stale: run npm run docs:widget`).toBe(react);
    const manifest = JSON.parse(await read(MANIFEST)) as { modules: { declarations?: Declaration[] }[] };
    const element = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'kb-chat')!;
    // Every event the element fires is a prop, kb-escalate included.
    for (const event of element.events ?? [])
      if (event.name) expect(react).toContain(`: '${event.name}' as EventName<`);
    expect(react).toContain("onKbEscalate: 'kb-escalate' as EventName<CustomEvent<KbEscalateDetail>>");
  });

  it(`${DOC} holds the reference rendered from ${MANIFEST}`, async () => {
    const current = await read(DOC);
    const rendered = renderReference(JSON.parse(await read(MANIFEST)), await detailInterfaces());
    expect(current).toContain(BEGIN);
    expect(
      current.slice(current.indexOf(BEGIN), current.indexOf(END) + END.length),
      `the reference in ${DOC} is stale: run npm run docs:widget`,
    ).toBe(rendered);
  });

  it('names every attribute, event, CSS part and custom property of the manifest, and every event detail field', async () => {
    const manifest = JSON.parse(await read(MANIFEST)) as { modules: { declarations?: Declaration[] }[] };
    const element = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'kb-chat')!;
    const details = await detailInterfaces();
    const block = renderReference(manifest, details);
    const names = [element.attributes, element.events, element.cssParts, element.cssProperties]
      .flatMap((list) => list ?? [])
      .flatMap((item) => (item.name ? [item.name] : []));
    expect(names.length).toBeGreaterThan(50);
    for (const name of names) expect(block, name).toContain(`| \`${name}\` |`);
    expect([...details.keys()]).toEqual(
      expect.arrayContaining(['KbQuestionDetail', 'KbEscalateDetail', 'KbFeedbackDetail']),
    );
    for (const [type, { fields }] of details)
      for (const field of fields) expect(block, `${type}.${field.name}`).toContain(field.name);
  });
});
