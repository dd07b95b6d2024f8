/**
 * KB_DATA_DIR is its owner's: a new one is created 0700 and nothing the embedded database writes in it is
 * open to other users; an existing one left open (an older install, a 022 umask) is tightened at open, with
 * a warning. A real PGlite database on disk.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { looseEntries, ownDataDir } from './pglite-data-dir.ts';
import { openPgliteStore } from './pglite.ts';

let root: string;
const umask = process.umask();
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kb-data-dir-'));
});
afterAll(async () => {
  process.umask(umask);
  await rm(root, { recursive: true, force: true });
});

describe('the embedded database directory', () => {
  it('is created 0700, and nothing PGlite writes under it is readable by others', { timeout: 120_000 }, async () => {
    // The usual umask, under which PGlite used to leave 755 folders and a 666 pg_hba.conf.
    process.umask(0o022);
    const dir = join(root, 'fresh', 'data');
    const store = await openPgliteStore(dir, { answerWriteKey: null });
    await store.close();
    expect(looseEntries(dir)).toEqual([]);
    const { statSync } = await import('node:fs');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'pg_hba.conf')).mode & 0o077).toBe(0);
  });

  it('tightens an existing open directory with a warning, and says nothing when it is already tight', () => {
    process.umask(0o022);
    const dir = join(root, 'old');
    mkdirSync(join(dir, 'base'), { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'pg_hba.conf'), 'local all all trust\n', { mode: 0o666 });
    chmodSync(join(dir, 'pg_hba.conf'), 0o666);
    expect(looseEntries(dir).length).toBe(3);
    const warn = vi.fn();
    ownDataDir(dir, warn);
    expect(looseEntries(dir)).toEqual([]);
    expect(warn).toHaveBeenCalledOnce();
    expect(warn.mock.calls[0]![0]).toMatch(/3 file\(s\) or folder\(s\) were open to other users/);
    ownDataDir(dir, warn);
    expect(warn).toHaveBeenCalledOnce();
  });
});
