/**
 * The shape every reader (Markdown, plain text) turns a file into, and the chunker consumes: a title, the
 * citation link, and sections of Markdown blocks in reading order, each under its heading path.
 */

export type BlockKind = 'text' | 'list' | 'code' | 'table';

export interface Block {
  kind: BlockKind;
  /** The block as Markdown (what gets stored and rendered). */
  markdown: string;
  /** Code blocks: the fence info string and the code itself, so a long block can be re-fenced in parts. */
  lang?: string;
  code?: string;
  /** Lists: the items' Markdown, so a long list can be split between items. */
  items?: string[];
}

export interface Section {
  /** Headings from the outermost to this section's own; empty before the first heading. */
  headingPath: string[];
  /** GitHub-style slug of the deepest heading (unique within the document), or null. */
  anchor: string | null;
  blocks: Block[];
}

export interface ParsedDocument {
  title: string;
  description: string | null;
  /** The document's citation link, or null. */
  url: string | null;
  format: 'markdown' | 'text';
  sections: Section[];
}

/** Where a file's title and URL come from when its content does not say. */
export interface DocumentDefaults {
  /** File name without extension: the title of last resort. */
  fileTitle: string;
  /** `--base-url` + the path relative to the ingested folder, or null. */
  url: string | null;
}
