/**
 * Document embeddings in Node with transformers.js: the same model, quantisation, pooling and
 * normalisation as the widget uses for questions in the browser, so both land in the same vector space.
 */
import path from 'node:path';
import {
  env,
  pipeline,
  type FeatureExtractionPipeline,
  type PreTrainedTokenizer,
  type Tensor,
} from '@huggingface/transformers';
import { meanPool } from './mean-pool.ts';

export interface EmbedderOptions {
  /** Model id, e.g. `Xenova/all-MiniLM-L6-v2` (KB_EMBED_MODEL). */
  model: string;
  /** Folder holding `<model id>/…` (KB_MODEL_DIR). When set, nothing is fetched remotely. */
  modelDir: string | null;
  /** Texts per inference call. Default 32. */
  batchSize?: number;
  /** ONNX Runtime intra-op threads; unset = the runtime's default (all cores). Pool workers use 1 each. */
  threads?: number;
}

export interface Embedder {
  readonly model: string;
  /** The model's tokenizer, for sizing chunks in the model's own word pieces. */
  readonly tokenizer: PreTrainedTokenizer;
  /** Word pieces of `text`, [CLS] and [SEP] included. */
  countTokens(text: string): number;
  /** Mean-pooled, L2-normalised vectors (384 numbers for MiniLM), one per text, in order. */
  embed(texts: string[]): Promise<number[][]>;
  dispose(): Promise<void>;
}

/** The model could not be loaded; the message says what to configure. */
export class EmbedderLoadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmbedderLoadError';
  }
}

/**
 * Loads the model (≈150 ms for the test double; the real MiniLM is a 23 MB download on first use when
 * remote loading is allowed).
 *
 * @example
 * const embedder = await createEmbedder({ model: 'test-double/bert-384', modelDir: 'test/fixtures/models' });
 * const [vector] = await embedder.embed(['What is the refund policy?']);
 */
export async function createEmbedder({ model, modelDir, batchSize = 32, threads }: EmbedderOptions): Promise<Embedder> {
  // transformers.js keeps these settings process-wide; they are set right before the load that uses them.
  if (modelDir) {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = withTrailingSlash(path.resolve(modelDir));
  } else {
    env.allowRemoteModels = true;
  }
  let extractor: FeatureExtractionPipeline;
  try {
    extractor = await pipeline('feature-extraction', model, {
      dtype: 'q8',
      ...(threads ? { session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 } } : {}),
    });
  } catch (error) {
    throw new EmbedderLoadError(loadErrorMessage(model, modelDir, error), { cause: error });
  }
  const tokenizer = extractor.tokenizer;
  return {
    model,
    tokenizer,
    countTokens: (text) => tokenizer.encode(text).length,
    async embed(texts) {
      // A batch is padded to its longest text; batching texts of similar length wastes less compute.
      const order = texts.map((text, index) => ({ index, length: text.length })).sort((a, b) => a.length - b.length);
      const vectors: number[][] = new Array(texts.length);
      for (let i = 0; i < order.length; i += batchSize) {
        const batch = order.slice(i, i + batchSize);
        // What `extractor(texts, { pooling: 'mean', normalize: true })` does, with a faster pooling loop
        // (mean-pool.ts says why; mean-pool.test.ts checks the vectors are the same).
        const inputs = tokenizer(
          batch.map(({ index }) => texts[index]!),
          { padding: true, truncation: true },
        );
        const outputs = await extractor.model(inputs);
        const hidden = (outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings) as Tensor;
        const output = meanPool(hidden, inputs.attention_mask as Tensor).normalize(2, -1);
        (output.tolist() as number[][]).forEach((vector, j) => (vectors[batch[j]!.index] = vector));
        for (const tensor of Object.values(outputs)) (tensor as Tensor).dispose();
      }
      return vectors;
    },
    dispose: () => extractor.dispose(),
  };
}

function loadErrorMessage(model: string, modelDir: string | null, error: unknown): string {
  const cause = error instanceof Error ? error.message : String(error);
  const where = modelDir
    ? `from KB_MODEL_DIR=${modelDir} (remote loading is off when KB_MODEL_DIR is set)`
    : 'from the Hugging Face hub (KB_MODEL_DIR is not set)';
  return [
    `Could not load the embedding model "${model}" ${where}: ${cause}`,
    `Either set KB_MODEL_DIR to a folder containing ${model}/onnx/model_quantized.onnx plus its tokenizer ` +
      `files (config.json, tokenizer.json, tokenizer_config.json), or allow network access to huggingface.co.`,
    'For an offline try-out with the test double: KB_EMBED_MODEL=test-double/bert-384 KB_MODEL_DIR=test/fixtures/models',
  ].join('\n');
}

function withTrailingSlash(dir: string): string {
  return dir.endsWith(path.sep) ? dir : dir + path.sep;
}
