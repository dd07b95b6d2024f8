/**
 * Keyword mode has no embedding to carry a follow-up's topic, so a section that shares only the follow-up's
 * own generic word can pass the gate on it: "How do I change it?" after the evidence threshold found
 * "Who can change the knowledge base" and quoted it as the answer. A candidate of a follow-up is kept when it
 * is on a page the earlier answer cited (that page is about the topic even where a section does not repeat
 * its words) or when it holds one of the borrowed words; the others answer another question.
 */
import { contentWords } from '../chat/text.ts';
import type { SearchChunkRow } from '../store/types.ts';

export function onTopic<Row extends Pick<SearchChunkRow, 'document_id' | 'document_title' | 'content' | 'meta'>>(
  rows: Row[],
  context: { terms: string; documents: string[] },
): Row[] {
  const borrowed = new Set(contentWords(context.terms));
  if (borrowed.size === 0) return rows;
  const cited = new Set(context.documents);
  return rows.filter(
    (row) =>
      cited.has(row.document_id) ||
      contentWords(`${row.document_title ?? ''} ${row.meta.section ?? ''} ${row.content}`).some((word) =>
        borrowed.has(word),
      ),
  );
}
