/**
 * Test support: one embedded database per test file (PGlite + pgvector, the real migrations), opened
 * before its tests, closed after, with the knowledge base emptied before each test. Read `kb.store` inside
 * tests: it is set once the file's tests start.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { openPgliteStore, type PgliteStore } from '../store/pglite.ts';
import { migratedTemplate } from './pglite-template.ts';

/** A visitor's claims for calling search functions directly. */
export const VISITOR = { sub: '00000000-0000-0000-0000-000000000001', role: 'authenticated' };

export function useKbStore(): { store: PgliteStore } {
  const kb = {} as { store: PgliteStore };
  beforeAll(async () => {
    kb.store = await openPgliteStore(null, { loadDataDir: await migratedTemplate() });
  });
  afterAll(() => kb.store?.close());
  beforeEach(async () => {
    await kb.store.db.exec('delete from kb_documents');
  });
  return kb;
}
