/** Front matter is YAML only: a `---js` block is refused before anything of it runs. */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import matter from 'gray-matter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrontMatterError, readFrontMatter } from './front-matter.ts';
import { codeFrontMatter } from '../testing/front-matter-attack.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kb-front-matter-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readFrontMatter', () => {
  it('reads YAML front matter (none, ---, ---yaml, ---yml) and the body after it', () => {
    expect(readFrontMatter('# No front matter\n')).toEqual({ data: {}, content: '# No front matter\n' });
    for (const open of ['---', '---yaml', '---yml', '--- YAML ']) {
      expect(readFrontMatter(`${open}\ntitle: Refunds\ntags: [billing]\n---\n# Body\n`), open).toEqual({
        data: { title: 'Refunds', tags: ['billing'] },
        content: '# Body\n',
      });
    }
    expect(readFrontMatter('\uFEFF---\ntitle: BOM\n---\nx').data).toEqual({ title: 'BOM' });
    expect(readFrontMatter('---\n---\nempty').data).toEqual({});
  });

  it.each(['js', 'javascript', 'JS', ' javascript '])('refuses ---%s without running it', (language) => {
    const marker = path.join(dir, `marker-${language.trim()}`);
    const source = codeFrontMatter(language, marker);
    expect(() => readFrontMatter(source)).toThrow(FrontMatterError);
    expect(() => readFrontMatter(source)).toThrow(
      `front matter in '${language.trim()}' is refused: only YAML front matter is read`,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses every other language too (json, coffee, toml, an unknown one)', () => {
    for (const language of ['json', 'coffee', 'toml', 'whatever']) {
      expect(() => readFrontMatter(`---${language}\n{"title": "x"}\n---\nbody`), language).toThrow(
        `front matter in '${language}' is refused`,
      );
    }
  });

  it('reads YAML with the safe schema: a !!js/function tag is an error, never a function', () => {
    expect(() => readFrontMatter('---\ntitle: !!js/function "function () { return 1 }"\n---\n')).toThrow(/unknown tag/);
  });

  it("keeps nothing in gray-matter's input cache", () => {
    const cache = (matter as unknown as { cache: Record<string, unknown> }).cache;
    const before = Object.keys(cache).length;
    readFrontMatter(`---\ntitle: cache ${Math.random()}\n---\nbody`);
    expect(Object.keys(cache).length).toBe(before);
  });
});
