/**
 * `npx tsx scripts/eval/miss-classes.ts <signals.json> [hybrid|lexical|vector] [--show]`: the answers of the
 * tuning sets that cite the answering page without the fact, counted per site by where the fact is among the
 * candidates (`missClass`), from the candidates site-signals.ts saved; `--show` prints each such answer with
 * the chunks extraction received. Held-out sets are skipped: their answers are never read.
 */
import { readFile, readdir } from 'node:fs/promises';
import type { RetrievalMode } from '../../protocol/index.ts';
import { extractAnswer } from '../../server/chat/extract.ts';
import { readConfig } from '../../server/config/index.ts';
import { retrievalFromEnv } from '../../server/retrieval/config.ts';
import { decide, sectionKey } from '../../server/retrieval/index.ts';
import type { ChunkMatch } from '../../server/store/types.ts';
import { readQaFile } from './docs-qa.ts';
import { containsFact } from './metrics.ts';
import type { SiteSignals } from './site-signals.ts';

export type MissClass =
  | 'right section'
  | 'another section, received'
  | 'another chunk of a received section'
  | 'a candidate not received'
  | 'no candidate';

type Place = Pick<ChunkMatch, 'chunk_id' | 'document_id' | 'meta' | 'content'>;

/**
 * Where the fact of an answer that cites the answering page (`page`, a document id) without it is: in a section
 * the answer quotes (another unit of it was chosen), in another section extraction received (`chunks`), in another
 * chunk of a received section (`siblings`, read only for a value or a block), in a candidate of the page the
 * search returned but retrieval did not pass on (`rows`), or nowhere.
 */
export function missClass(
  quoted: string[],
  chunks: Place[],
  siblings: Place[],
  rows: Place[],
  page: string,
  holds: (content: string) => boolean,
): MissClass {
  const received = [...chunks, ...siblings];
  const quotedSections = new Set(received.filter((c) => quoted.includes(c.chunk_id)).map(sectionKey));
  const holding = received.filter((c) => holds(c.content));
  if (holding.some((c) => quotedSections.has(sectionKey(c)))) return 'right section';
  if (chunks.some((c) => c.document_id === page && holds(c.content))) return 'another section, received';
  if (siblings.some((c) => c.document_id === page && holds(c.content))) return 'another chunk of a received section';
  if (rows.some((c) => c.document_id === page && holds(c.content))) return 'a candidate not received';
  return 'no candidate';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) {
    console.error('usage: npx tsx scripts/eval/miss-classes.ts <signals.json> [hybrid|lexical|vector] [--show]');
    process.exit(2);
  }
  const mode = (rest.find((a) => !a.startsWith('--')) ?? 'hybrid') as RetrievalMode;
  const show = rest.includes('--show');
  const sites = JSON.parse(await readFile(file, 'utf8')) as SiteSignals[];
  const expectOf = new Map<string, string[]>();
  for (const f of await readdir('scripts/eval/qa'))
    if (f.endsWith('.json') && !f.includes('conversation') && !f.includes('heldout'))
      for (const item of (await readQaFile(`scripts/eval/qa/${f}`)).items) expectOf.set(item.q, item.expect);
  const env = readConfig(process.env);
  const options = { evidenceThreshold: env.evidenceThreshold, ...retrievalFromEnv(process.env) };
  for (const site of sites) {
    const counts = new Map<MissClass, number>();
    let cited = 0;
    for (const q of site.questions) {
      if (q.source === null || q.set.includes('heldout')) continue;
      const rows = q.rows[mode];
      const got = decide(rows, mode, options, q.q);
      if (got.kind === 'refuse') continue;
      const answer = extractAnswer(q.q, got.chunks, {}, got.siblings);
      const page = rows.find((r) => r.source === q.source)?.document_id;
      if (page === undefined || !answer.citations.some((c) => c.document_id === page)) continue;
      cited++;
      const expect = expectOf.get(q.q) ?? [];
      if (containsFact(answer.text, expect)) continue;
      const holds = (content: string) => containsFact(content, expect);
      const quoted = answer.citations.map((c) => c.chunk_id);
      const cls = missClass(quoted, got.chunks, got.siblings ?? [], rows, page, holds);
      counts.set(cls, (counts.get(cls) ?? 0) + 1);
      if (show) {
        const sections = got.chunks.map(
          (c, i) =>
            `${i}:${c.document_id === page ? '*' : ''}${c.meta.section ?? ''}${holds(c.content) ? ' [fact]' : ''}`,
        );
        console.log(`\n[${cls}] ${q.set}: ${q.q}\n  received: ${sections.join(' | ')}`);
        console.log(answer.text.replace(/^/gm, '    | '));
      }
    }
    const misses = [...counts.values()].reduce((a, b) => a + b, 0);
    console.log(`${site.corpus} (${mode}): ${misses} of ${cited} answers citing the page lack the fact`);
    for (const [cls, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`  ${cls}: ${n}`);
  }
}
