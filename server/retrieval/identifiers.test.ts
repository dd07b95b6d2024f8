/**
 * Dotted identifiers in full-text search (migration 20261128130000), on real PGlite and, with
 * KB_TEST_DATABASE_URL, on PostgreSQL 15 + pgvector. PostgreSQL's default parser reads `server.port` as one
 * `host` token: without the identifier's words in the chunk's vector, a question in a visitor's words
 * ("the port of the dev server") could not meet a heading `server.port` in keyword search. A question that
 * names the identifier whole must still meet it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OpenStore } from '../store/sql-store.ts';
import { describeStores } from '../testing/pg.ts';
import { VISITOR } from '../testing/store.ts';
import { basis } from '../testing/vectors.ts';

describeStores('identifiers in full-text search', (kind) => {
  const kb = {} as { store: OpenStore };
  afterAll(() => kb.store?.close());
  beforeAll(async () => {
    kb.store = await kind.open();
    const chunk = (content: string, section: string, i: number) => ({
      content,
      meta: { section },
      embedding: basis(i),
    });
    await kb.store.ingestDocument({
      source: 'config.md',
      name: 'Configuration',
      meta: {},
      checksum: 'config',
      model: 'm',
      chunks: [
        chunk('Specify the number to listen on. Default: 5173.', 'Configuration > server.port', 0),
        chunk('Specify the output directory, relative to the root. Default: dist.', 'Configuration > build.outDir', 1),
        chunk(
          'Static files are served from here; see https://vite.dev/guide/assets for vite.config.ts.',
          'Configuration > publicDir',
          2,
        ),
      ],
    });
    await kb.store.ingestDocument({
      source: 'other.md',
      name: 'Other',
      meta: {},
      checksum: 'other',
      model: 'm',
      chunks: [chunk('Plugins run in the order they are listed.', 'Plugins', 3)],
    });
  });

  const lexical = async (text: string) =>
    (await kb.store.searchChunks(VISITOR, { embedding: null, text, count: 5, mode: 'lexical', filters: {} })).map(
      (r) => ({ content: r.content, coverage: r.coverage }),
    );

  it("meets an identifier's words in the section path and in the content", async () => {
    const port = await lexical('How do I change the port of the dev server?');
    expect(port[0]?.content).toMatch(/^Specify the number to listen on/);
    expect(port[0]!.coverage).toBeGreaterThanOrEqual(0.5); // "port" and "server" of four words
    expect((await lexical('where does the build output go, which outdir'))[0]?.content).toMatch(/output directory/);
    // A dotted file name in the content is a `host` token too.
    expect((await lexical('where is the config file'))[0]?.content).toMatch(/vite\.config\.ts/);
  });

  it('still meets the identifier named whole, and keeps it as one lexeme too', async () => {
    const rows = await lexical('server.port');
    expect(rows[0]).toMatchObject({ content: expect.stringMatching(/^Specify the number/), coverage: 1 });
    const lexemes = await kb.store.db.query<{ lexemes: string[] }>(
      `select tsvector_to_array(fts) as lexemes from kb_chunks where meta ->> 'section' like '%build.outDir'`,
    );
    expect(lexemes.rows[0]!.lexemes).toEqual(expect.arrayContaining(['build.outdir', 'build', 'outdir']));
  });

  it('leaves versions, links and paths as the parser reads them', async () => {
    const parts = await kb.store.db.query<{ parts: string }>(
      `select kb_identifier_parts('Vite 5.0.1 needs Node 18; set server.fs.deny (https://vite.dev/config, /guide/ssr, a@b.io)') as parts`,
    );
    expect(parts.rows[0]!.parts).toBe('server fs deny');
    // The link's host and path stay out of the chunk's words: "guide" is in no lexeme of the publicDir chunk.
    expect((await lexical('guide assets'))[0]?.content ?? '').not.toMatch(/^Static files/);
  });
});
