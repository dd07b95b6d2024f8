/**
 * The shape every reader (Markdown, HTML, PDF, plain text) turns a source into, and the chunker consumes: a title, the
 * citation link, and sections of Markdown blocks in reading order, each under its heading path.
 */

/** `note`: a block quote or callout (admonition), quoted whole in answers. */
export type BlockKind = 'text' | 'list' | 'code' | 'table' | 'note';

export interface Block {
  kind: BlockKind;
  /** The block as Markdown (what gets stored and rendered). */
  markdown: string;
  /** Code blocks: the fence info string and the code itself, so a long block can be re-fenced in parts. */
  lang?: string;
  code?: string;
  /** Code blocks: the label the site shows on the block's tab or title bar (`vite.config.js`, `pnpm`). */
  label?: string;
  /** Notes: the title the site shows over the note (`Deprecated`, `Warning`). */
  title?: string;
  /** Lists: the items' Markdown, so a long list can be split between items. */
  items?: string[];
  /**
   * Where the block lies in the source text (UTF-16 offsets, `end` exclusive), when known. The source text
   * is the file as decoded (Markdown, HTML, text: line endings normalised to \n) or, for a PDF, the text
   * of its pages joined by form feeds.
   */
  start?: number;
  end?: number;
}

export interface Section {
  /** Headings from the outermost to this section's own; empty before the first heading. */
  headingPath: string[];
  /** GitHub-style slug of the deepest heading (unique within the document), or null. */
  anchor: string | null;
  /** PDF: the 1-based page every block of this section is on. */
  page?: number;
  blocks: Block[];
}

export type SourceType = 'markdown' | 'html' | 'pdf' | 'text';

export interface ParsedDocument {
  title: string;
  description: string | null;
  /** The document's citation link, or null. */
  url: string | null;
  format: SourceType;
  sections: Section[];
  /** Front matter `tags` (or a comma-separated string); [] otherwise. */
  tags?: string[];
  /** Front matter `lang`/`language`, the HTML `lang` attribute, the PDF's language; null when unknown. */
  language?: string | null;
  /** ISO date (front matter `date`/`published_at`/`published`, HTML `article:published_time`, PDF creation date). */
  publishedAt?: string | null;
}

/** Where a file's title and URL come from when its content does not say. */
export interface DocumentDefaults {
  /** File name without extension: the title of last resort. */
  fileTitle: string;
  /** `--base-url` + the path relative to the ingested folder, the crawled page's URL, or null. */
  url: string | null;
}
