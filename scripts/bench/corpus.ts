/**
 * The benchmark's knowledge bases and questions, made deterministically from the text in `../shared/data`
 * (nothing is copied into the repository).
 *
 * Each document is one Markdown file of about one chunk (a title and ≤ 120 words: under the chunker's 256
 * word pieces), so a knowledge base of N documents is a knowledge base of ≈ N chunks. The first documents
 * are real text, in a fixed order: SciFact abstracts cut into ≈ 120-word parts (documents 0–11,932), then
 * SQuAD paragraphs, then the Railway docs' prose (14,010 real documents in all). Beyond that, documents are recombined from the same
 * sentences with a seeded PRNG: the vocabulary and its frequencies stay those of real text, which is what
 * the full-text statistics and their cost depend on. The same N gives the same files on every machine.
 *
 * Questions are SciFact claims. The 1k and 10k knowledge bases are SciFact text only (the 10k one most of its
 * abstracts), so many claims are about the knowledge base and the rest are refused; a refusal is measured
 * like any answer (the bench reports how many of each).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SHARED_DATA } from '../lib/shared-data.mjs';

export { SHARED_DATA };

const WORDS_PER_DOC = 120;

interface Part {
  title: string;
  text: string;
}

/** Writes `count` Markdown documents into `dir` (created); returns how many were written. */
export async function writeCorpus(dir: string, count: number, dataDir = SHARED_DATA): Promise<number> {
  await mkdir(dir, { recursive: true });
  const batch: Promise<void>[] = [];
  for await (const { index, title, text } of corpusDocuments(count, dataDir)) {
    batch.push(writeFile(path.join(dir, `${String(index).padStart(6, '0')}.md`), `# ${title}\n\n${text}\n`));
    if (batch.length >= 256) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  return count;
}

export interface CorpusDocument {
  index: number;
  title: string;
  text: string;
  /** For a recombined document, the real parts its sentences came from (indexes into the real ones); else [index]. */
  sources: number[];
}

/** The corpus's documents in order, made lazily (a million of them need not be in memory at once). */
export async function* corpusDocuments(count: number, dataDir = SHARED_DATA): AsyncGenerator<CorpusDocument> {
  const real = await realParts(dataDir);
  const sentences: string[] = [];
  const sentencePart: number[] = [];
  for (const [i, part] of real.entries()) {
    for (const sentence of splitSentences(part.text)) {
      sentences.push(sentence);
      sentencePart.push(i);
    }
  }
  const titles = real.map((p) => p.title);
  const random = mulberry32(0x6b62 + 1);
  for (let i = 0; i < count; i++) {
    if (i < real.length) yield { index: i, ...real[i]!, sources: [i] };
    else yield { index: i, ...recombined(i, sentences, sentencePart, titles, random) };
  }
}

/** How many real parts the shared data holds (documents beyond are recombined). */
export async function realPartCount(dataDir = SHARED_DATA): Promise<number> {
  return (await realParts(dataDir)).length;
}

/** `count` SciFact claims, spread over the file (deterministic). */
export async function benchQuestions(count: number, dataDir = SHARED_DATA): Promise<string[]> {
  const lines = (await readFile(path.join(dataDir, 'scifact', 'queries.jsonl'), 'utf8'))
    .split('\n')
    .filter((l) => l.trim());
  const claims = lines.map((l) => (JSON.parse(l) as { text: string }).text.trim());
  const n = Math.min(count, claims.length);
  const step = claims.length / n; // (count, not n, here repeated the first claims when count > claims)
  return Array.from({ length: n }, (_, i) => claims[Math.floor(i * step)]!);
}

async function realParts(dataDir: string): Promise<Part[]> {
  const parts: Part[] = [];
  const corpus = (await readFile(path.join(dataDir, 'scifact', 'corpus.jsonl'), 'utf8'))
    .split('\n')
    .filter((l) => l.trim());
  for (const line of corpus) {
    const doc = JSON.parse(line) as { title?: string; text: string };
    parts.push(...cut(clean(doc.title ?? 'Abstract'), doc.text));
  }
  const squad = JSON.parse(await readFile(path.join(dataDir, 'squad-v2-dev-public.json'), 'utf8')) as {
    data: { title: string; paragraphs: { context: string }[] }[];
  };
  for (const article of squad.data) {
    for (const paragraph of article.paragraphs) parts.push(...cut(article.title.replace(/_/g, ' '), paragraph.context));
  }
  const docsDir = path.join(dataDir, 'docs-corpus', 'railway-docs', 'content', 'docs');
  if (existsSync(docsDir)) {
    for (const file of (await listMarkdown(docsDir)).sort()) {
      const text = prose(await readFile(file, 'utf8'));
      if (text)
        parts.push(
          ...cut(
            path
              .basename(file)
              .replace(/\.mdx?$/, '')
              .replace(/-/g, ' '),
            text,
          ),
        );
    }
  }
  return parts;
}

/** ≈ WORDS_PER_DOC-word parts, cut at sentence ends. */
function cut(title: string, text: string): Part[] {
  const parts: Part[] = [];
  let words: string[] = [];
  for (const sentence of splitSentences(text)) {
    const next = sentence.split(/\s+/);
    if (words.length > 0 && words.length + next.length > WORDS_PER_DOC) {
      parts.push({ title: parts.length ? `${title} (${parts.length + 1})` : title, text: words.join(' ') });
      words = [];
    }
    words.push(...next.slice(0, WORDS_PER_DOC));
  }
  if (words.length)
    parts.push({ title: parts.length ? `${title} (${parts.length + 1})` : title, text: words.join(' ') });
  return parts;
}

function recombined(
  i: number,
  sentences: string[],
  sentencePart: number[],
  titles: string[],
  random: () => number,
): Part & { sources: number[] } {
  const words: string[] = [];
  const sources: number[] = [];
  while (words.length < WORDS_PER_DOC - 30) {
    const pick = Math.floor(random() * sentences.length);
    words.push(...sentences[pick]!.split(/\s+/).slice(0, 40));
    sources.push(sentencePart[pick]!);
  }
  return { title: `${titles[Math.floor(random() * titles.length)]} · ${i}`, text: words.join(' '), sources };
}

function splitSentences(text: string): string[] {
  return clean(text)
    .split(/(?<=[.!?])\s+(?=[A-Z0-9(])/)
    .filter((s) => s.length > 0);
}

/** One line, no Markdown syntax that would make a heading, list or code block. */
function clean(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/^[#>*\-+`|]+\s*/, '')
    .trim();
}

/** The prose lines of a docs page: no front matter, code, tables, components or headings. */
function prose(markdown: string): string {
  const body = markdown.replace(/^---\n[\s\S]*?\n---\n/, '').replace(/```[\s\S]*?```/g, ' ');
  return body
    .split('\n')
    .filter((line) => /^[A-Za-z]/.test(line.trim()) && !line.includes('|') && !line.trim().startsWith('import '))
    .map((line) => line.replace(/<[^>]+>/g, ' ').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'))
    .join(' ');
}

async function listMarkdown(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listMarkdown(full)));
    else if (/\.mdx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** A small seeded PRNG (public domain), so every machine writes the same corpus. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
