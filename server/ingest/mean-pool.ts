/**
 * Mean pooling of a model's token vectors over the attention mask: the same arithmetic as transformers.js's
 * `mean_pooling` (float64 sums over the tokens in order, divided by the count of attended tokens, stored as
 * float32), so the vectors are bit for bit the ones `pipeline(…)(texts, { pooling: 'mean' })` returns
 * (mean-pool.test.ts compares them). transformers.js walks the tensor one dimension at a time and converts
 * every mask entry (an int64) to a number once per dimension, 384 times per token for MiniLM; here each mask
 * entry is read once and each token's row is read in memory order. That loop was the largest single cost
 * of ingestion in a CPU profile of the quality floor's Vite set (`node --cpu-prof`).
 */
import { Tensor } from '@huggingface/transformers';

export function meanPool(hidden: Tensor, attentionMask: Tensor): Tensor {
  const [batch, tokens, dims] = hidden.dims as [number, number, number];
  const data = hidden.data as Float32Array;
  const mask = attentionMask.data as BigInt64Array | Float32Array | Int32Array;
  const out = new Float32Array(batch * dims);
  const weights = new Float64Array(tokens);
  const sums = new Float64Array(dims);
  for (let i = 0; i < batch; i++) {
    let count = 0;
    for (let j = 0; j < tokens; j++) {
      weights[j] = Number(mask[i * tokens + j]);
      count += weights[j]!;
    }
    sums.fill(0);
    for (let j = 0; j < tokens; j++) {
      const weight = weights[j]!;
      const row = (i * tokens + j) * dims;
      for (let k = 0; k < dims; k++) sums[k]! += data[row + k]! * weight;
    }
    for (let k = 0; k < dims; k++) out[i * dims + k] = sums[k]! / count;
  }
  return new Tensor(hidden.type, out, [batch, dims]);
}
