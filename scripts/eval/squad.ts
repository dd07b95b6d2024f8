/**
 * SQuAD-format data for the eval: read a file, turn articles into a knowledge base (one Markdown document
 * per article, titled by the article, one `## Paragraph N` section per paragraph), ingest it with the real
 * pipeline into a fresh in-memory database, and name the section each question's answer lives in.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Embedder } from '../../server/ingest/embedder.ts';
import { ingest } from '../../server/ingest/pipeline.ts';
import { openPgliteStore, type PgliteStore } from '../../server/store/pglite.ts';

export interface SquadArticle {
  title: string;
  paragraphs: {
    context: string;
    qas: { id: string; question: string; is_impossible?: boolean; answers: { text: string }[] }[];
  }[];
}

export interface SquadQuestion {
  id: string;
  question: string;
  answers: string[];
  answerable: boolean;
  /** The citation section of the paragraph the question was written on. */
  section: string;
  title: string;
}

export async function readSquad(file: string): Promise<SquadArticle[]> {
  const json = JSON.parse(await readFile(file, 'utf8')) as { data?: SquadArticle[] };
  if (!Array.isArray(json.data)) throw new Error(`${file}: not a SQuAD file (no "data" array)`);
  return json.data;
}

export const sectionOf = (title: string, paragraph: number): string =>
  `${displayTitle(title)} › Paragraph ${paragraph + 1}`;
export const displayTitle = (title: string): string => title.replace(/_/g, ' ');

export function questionsOf(articles: SquadArticle[]): SquadQuestion[] {
  return articles.flatMap((article) =>
    article.paragraphs.flatMap((paragraph, p) =>
      paragraph.qas.map((qa) => ({
        id: qa.id,
        question: qa.question.trim(),
        answers: qa.answers.map((a) => a.text),
        answerable: !qa.is_impossible && qa.answers.length > 0,
        section: sectionOf(article.title, p),
        title: displayTitle(article.title),
      })),
    ),
  );
}

/** One Markdown file per article. Paragraph text is written as is: answers are quoted from it verbatim. */
export function articleMarkdown(article: SquadArticle): string {
  const title = displayTitle(article.title);
  const body = article.paragraphs.map(
    (p, i) => `## Paragraph ${i + 1}\n\n${p.context.replace(/\s*\n\s*/g, ' ').trim()}`,
  );
  return `# ${title}\n\n${body.join('\n\n')}\n`;
}

export interface Kb {
  store: PgliteStore;
  chunks: number;
  seconds: number;
  close(): Promise<void>;
}

/** A fresh in-memory database holding `articles`, ingested by the real pipeline (files in a temp folder). */
export async function buildSquadKb(articles: SquadArticle[], embedder: Embedder): Promise<Kb> {
  const dir = await mkdtemp(path.join(tmpdir(), 'kb-eval-'));
  try {
    await Promise.all(
      articles.map((article, i) =>
        writeFile(path.join(dir, `${String(i).padStart(3, '0')}.md`), articleMarkdown(article)),
      ),
    );
    return await buildKb(dir, embedder);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `loadDataDir`: a dump of a migrated empty database to start from instead of initdb (the tests pass one). */
export async function buildKb(dir: string, embedder: Embedder, loadDataDir?: Blob): Promise<Kb> {
  const store = await openPgliteStore(null, loadDataDir ? { loadDataDir } : {});
  const summary = await ingest({ store, embedder, model: embedder.model, inputs: [dir], cwd: dir });
  if (summary.failed.length > 0) throw new Error(`ingestion failed: ${JSON.stringify(summary.failed.slice(0, 3))}`);
  return { store, chunks: summary.chunks, seconds: summary.seconds, close: () => store.close() };
}
