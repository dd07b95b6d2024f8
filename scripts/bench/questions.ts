/**
 * The bench's questions, embedded here as the widget embeds them in the browser (the test-double model), so
 * the server runs hybrid retrieval; plus a few other claims to warm a server up with (never counted, and
 * not among the counted questions, so no counted question finds its pages cached by its own warm-up).
 */
import { createEmbedder } from '../../server/ingest/embedder.ts';
import { benchQuestions } from './corpus.ts';
import { BENCH_MODEL, BENCH_MODEL_DIR } from './kb.ts';
import type { Question } from './latency.ts';

export async function embeddedQuestions(
  count: number,
  warmUpCount = 5,
): Promise<{ questions: Question[]; warmUp: Question[] }> {
  const embedder = await createEmbedder({ model: BENCH_MODEL, modelDir: BENCH_MODEL_DIR });
  try {
    const texts = await benchQuestions(count);
    const others = (await benchQuestions(Number.MAX_SAFE_INTEGER))
      .filter((q) => !texts.includes(q))
      .slice(0, warmUpCount);
    const vectors = await embedder.embed([...texts, ...others]);
    const asQuestions = (list: string[], offset: number): Question[] =>
      list.map((text, i) => ({ text, embedding: vectors[offset + i]! }));
    return { questions: asQuestions(texts, 0), warmUp: asQuestions(others, texts.length) };
  } finally {
    await embedder.dispose();
  }
}
