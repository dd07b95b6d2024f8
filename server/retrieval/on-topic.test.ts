import { describe, expect, it } from 'vitest';
import { onTopic } from './on-topic.ts';

const row = (document_id: string, document_title: string, section: string, content: string) => ({
  document_id,
  document_title,
  meta: { section },
  content,
});

describe('onTopic: a keyword-mode follow-up keeps candidates about the earlier topic', () => {
  const rows = [
    row(
      'privacy',
      'Privacy and security',
      'Who can change the knowledge base',
      'Only the ingest command can change the knowledge base.',
    ),
    row('config', 'Configuration', 'Embedding model', 'Changing KB_EMBED_MODEL requires a re-ingest.'),
    row('how', 'How kb-chat works', 'Refusals', 'The evidence threshold is set with CHAT_EVIDENCE_THRESHOLD.'),
  ];

  it('keeps the cited pages whole and the chunks that hold a borrowed word, drops the rest', () => {
    const kept = onTopic(rows, { terms: 'evidence threshold', documents: ['config'] });
    expect(kept.map((r) => r.document_id)).toEqual(['config', 'how']);
  });

  it('compares words folded as the extraction folds them (plural, -ing)', () => {
    const kept = onTopic(rows, { terms: 'thresholds', documents: [] });
    expect(kept.map((r) => r.document_id)).toEqual(['how']);
  });

  it('keeps everything when nothing was borrowed', () => {
    expect(onTopic(rows, { terms: '', documents: [] })).toHaveLength(3);
  });
});
