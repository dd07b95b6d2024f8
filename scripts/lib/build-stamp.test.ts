import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { upToDate, writeStamp } from './build-stamp.mjs';

let dir: string;
const at = (name: string) => join(dir, name);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kb-stamp-'));
  await writeFile(at('a.ts'), 'export const a = 1;\n');
  await writeFile(at('out.js'), 'const a=1;');
  await writeStamp(at('stamp.json'), { inputs: [at('a.ts')], outputs: [at('out.js')] });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('the build stamp', () => {
  it('is up to date while nothing changed', async () => {
    expect(await upToDate(at('stamp.json'))).toBe(true);
  });

  it('is stale when there is no stamp yet', async () => {
    expect(await upToDate(at('missing.json'))).toBe(false);
  });

  it('is stale when a source is edited, even to the same size', async () => {
    await writeFile(at('a.ts'), 'export const a = 2;\n');
    await utimes(at('a.ts'), new Date(), new Date(Date.now() + 5000));
    expect(await upToDate(at('stamp.json'))).toBe(false);
  });

  it('is stale when an output was deleted or replaced', async () => {
    await rm(at('out.js'));
    expect(await upToDate(at('stamp.json'))).toBe(false);
  });

  it('is stale when a build script it must know was not recorded', async () => {
    await writeFile(at('build.mjs'), '');
    expect(await upToDate(at('stamp.json'), [at('build.mjs')])).toBe(false);
  });
});
