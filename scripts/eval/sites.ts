/**
 * `npm run eval -- --site railway|vite|mkdocs-material|demo|all`: every question set of a site, found by
 * file name in scripts/eval/qa/ (`railway*.json`, `vite*.json`, `mkdocs*.json`, `demo-kb*.json`), each
 * evaluated on its own corpus (the file's `corpus` field) and reported as one row: tuning sets, held-out
 * sets (`*heldout*`) and conversation sets apart, never pooled, so a figure tuned on is never read as one
 * measured on unseen questions.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RetrievalMode } from '../../protocol/index.ts';
import type { Embedder } from '../../server/ingest/embedder.ts';
import type { RetrievalOptions } from '../../server/retrieval/index.ts';
import { evaluateConversations, isConversationFile, readConversationFile } from './conversations.ts';
import { evaluateQa, readQaFile } from './docs-qa.ts';

/** Site name on the command line → the file-name prefix of its question sets. */
export const SITES: Record<string, string> = {
  railway: 'railway',
  vite: 'vite',
  'mkdocs-material': 'mkdocs',
  demo: 'demo-kb',
};

export const QA_DIR = 'scripts/eval/qa';

export interface SiteFile {
  site: string;
  /** Path of the question set, relative to the working directory. */
  file: string;
  /** `tuning` or `held-out`, with ` conversations` for a conversation set. */
  set: string;
  conversations: boolean;
}

/** The question sets of `site` (or of every site for `all`), tuning before held-out before conversations. */
export async function siteFiles(site: string, dir = QA_DIR): Promise<SiteFile[]> {
  if (site !== 'all' && !(site in SITES)) {
    throw new Error(`--site must be one of ${[...Object.keys(SITES), 'all'].join(', ')}, not "${site}"`);
  }
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  const out: SiteFile[] = [];
  for (const [name, prefix] of Object.entries(SITES)) {
    if (site !== 'all' && site !== name) continue;
    for (const file of names.filter((n) => n.startsWith(prefix))) {
      const full = path.join(dir, file);
      const conversations = isConversationFile(JSON.parse(await readFile(full, 'utf8')));
      const set = `${file.includes('heldout') ? 'held-out' : 'tuning'}${conversations ? ' conversations' : ''}`;
      out.push({ site: name, file: full, set, conversations });
    }
  }
  const rank = (f: SiteFile) => (f.conversations ? 2 : 0) + (f.set.startsWith('held-out') ? 1 : 0);
  return out.sort(
    (a, b) => Object.keys(SITES).indexOf(a.site) - Object.keys(SITES).indexOf(b.site) || rank(a) - rank(b),
  );
}

export interface SiteRow {
  site: string;
  set: string;
  file: string;
  /** Questions (conversation sets: later turns). */
  questions: number;
  fact_in_answer: number;
  right_page_first: number;
  /** Null where the set does not measure it (conversation sets). */
  right_page_cited: number | null;
  fact_when_cited: number | null;
  off_topic_refused: number | null;
  off_topic: number | null;
  in_kb_refusal: number | null;
  chunks: number;
}

export interface SiteEvalOptions {
  embedder: Embedder;
  mode: RetrievalMode;
  evidenceThreshold: number;
  retrieval?: Partial<RetrievalOptions>;
}

export async function evaluateSiteFile(f: SiteFile, options: SiteEvalOptions): Promise<SiteRow> {
  const base = { site: f.site, set: f.set, file: path.basename(f.file) };
  if (f.conversations) {
    const file = await readConversationFile(f.file);
    const { report, chunks } = await evaluateConversations({ file, ...options, noContext: false });
    return {
      ...base,
      questions: report.follow_ups.n,
      fact_in_answer: report.follow_ups.fact_in_answer,
      right_page_first: report.follow_ups.right_page_first,
      right_page_cited: null,
      fact_when_cited: null,
      // Off-topic follow-ups, refused in the thread (conversations.ts `off_topic`).
      off_topic_refused: report.off_topic > 0 ? report.off_topic_refused : null,
      off_topic: report.off_topic > 0 ? report.off_topic : null,
      in_kb_refusal: null,
      chunks,
    };
  }
  const qa = await readQaFile(f.file);
  const { report, offTopic, chunks } = await evaluateQa({ qa, ...options });
  return {
    ...base,
    questions: qa.items.length,
    fact_in_answer: report.fact_in_answer,
    right_page_first: report.right_page_first,
    right_page_cited: report.right_page_cited,
    fact_when_cited: report.fact_when_cited,
    off_topic_refused: offTopic.filter((o) => o.reply.kind === 'refusal').length,
    off_topic: offTopic.length,
    in_kb_refusal: report.in_kb_refusal,
    chunks,
  };
}

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);

/** The rows as a Markdown table (what docs/retrieval-and-answers.md quotes). */
export function siteTable(rows: SiteRow[]): string {
  const head = [
    'site',
    'set (file)',
    'questions',
    'fact in answer',
    'right page first',
    'page cited',
    'fact when the page is cited',
    'off-topic refused',
    'refused in-KB',
  ];
  const lines = rows.map((r) => [
    r.site,
    `${r.set} (${r.file})`,
    String(r.questions),
    pct(r.fact_in_answer),
    pct(r.right_page_first),
    pct(r.right_page_cited),
    pct(r.fact_when_cited),
    r.off_topic === null ? '–' : r.off_topic === 0 ? 'none asked' : `${r.off_topic_refused} of ${r.off_topic}`,
    pct(r.in_kb_refusal),
  ]);
  return [head, head.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
