/** meanPool against transformers.js's own pooling: the same vectors, bit for bit, not merely close. */
import { mean_pooling, pipeline, Tensor } from '@huggingface/transformers';
import { expect, it } from 'vitest';
import { createEmbedder } from './embedder.ts';
import { MODEL, MODEL_DIR } from './fixtures/paths.ts';
import { meanPool } from './mean-pool.ts';

it('pools as mean_pooling does: padded tokens left out, the sums in the same order', () => {
  const [batch, tokens, dims] = [5, 17, 24];
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 4 - 2;
  const hidden = new Tensor('float32', Float32Array.from({ length: batch * tokens * dims }, random), [
    batch,
    tokens,
    dims,
  ]);
  // Each text attends to a different number of tokens (1 to 17), the rest is padding.
  const lengths = [17, 1, 9, 12, 4];
  const mask = new Tensor(
    'int64',
    BigInt64Array.from({ length: batch * tokens }, (_, n) => (n % tokens < lengths[Math.floor(n / tokens)]! ? 1n : 0n)),
    [batch, tokens],
  );
  const ours = meanPool(hidden, mask);
  expect(ours.dims).toEqual([batch, dims]);
  expect(Array.from(ours.data as Float32Array)).toEqual(Array.from(mean_pooling(hidden, mask).data as Float32Array));
  // Not trivially equal: a pooling that ignored the mask would differ.
  const unmasked = new Tensor('int64', new BigInt64Array(batch * tokens).fill(1n), [batch, tokens]);
  expect(Array.from(meanPool(hidden, unmasked).data as Float32Array)).not.toEqual(
    Array.from(ours.data as Float32Array),
  );
});

it("embeds as the feature-extraction pipeline with { pooling: 'mean', normalize: true } does", async () => {
  const texts = [
    'Refunds are paid within fourteen days.',
    'How do I change the port the server runs on? Set PORT before starting it, or pass --port.',
    'ok',
    'A longer passage about invoices: they are sent on the fifteenth of each month, by email, to the billing contact, and can be downloaded again from the billing page at any time.',
  ];
  const embedder = await createEmbedder({ model: MODEL, modelDir: MODEL_DIR, batchSize: 3 });
  try {
    const ours = await embedder.embed(texts);
    const extractor = await pipeline('feature-extraction', MODEL, { dtype: 'q8' });
    try {
      // One text per call: no padding at all in the reference, so batching and padding are checked too.
      for (const [i, text] of texts.entries()) {
        const reference = await extractor([text], { pooling: 'mean', normalize: true });
        expect(ours[i], text).toEqual((reference.tolist() as number[][])[0]);
      }
    } finally {
      await extractor.dispose();
    }
  } finally {
    await embedder.dispose();
  }
});
