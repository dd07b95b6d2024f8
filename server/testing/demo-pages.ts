import { readdirSync } from 'node:fs';
import { DEMO_KB_DIR } from '../runtime/node/paths.ts';

/**
 * How many pages the demo knowledge base (demo/kb) has. Tests that ingest, sync or list it expect one document
 * (one llms.txt line, one "unchanged" in a sync) per page, and the count follows the folder when a page is added.
 */
export const DEMO_PAGES = readdirSync(DEMO_KB_DIR).filter((name) => name.endsWith('.md')).length;
