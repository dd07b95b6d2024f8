/**
 * Messages between the widget and its generator worker (internal to the widget, not part of the wire
 * contract). The worker writes a fuller answer from the cited passages with a small instruct model;
 * the widget validates its `[n]` markers (output.ts) and falls back to the extractive answer on
 * any failure, timeout or "I cannot answer".
 */

/** Tokens a generation may write when the request does not say (about 150–200 words for SmolLM2). */
export const DEFAULT_MAX_NEW_TOKENS = 256;

export interface GeneratorInit {
  type: 'init';
  /** transformers.js model id, e.g. `HuggingFaceTB/SmolLM2-360M-Instruct` (its `onnx/model_q4.onnx`). */
  model: string;
  /** Absolute URL of the folder holding `<model id>/config.json` etc. */
  modelsUrl: string;
  /** Absolute URL of the folder holding the ONNX Runtime wasm files (the worker appends `<version>/<file>`). */
  wasmUrl: string;
}
export interface GeneratorPassage {
  /** The citation number the answer must use for this passage: `[n]`. */
  n: number;
  title: string;
  section: string | null;
  text: string;
}
/**
 * Write an answer to `question` from `passages` (the cited passages, numbered as in the extractive answer).
 * The prompt keeps passages while they fit its bounds (prompt.ts, DEFAULT_LIMITS): the `[n]` the answer may use
 * are `buildPrompt(question, passages).cited` — pure and cheap, so the widget can compute the same set for
 * `validateCitations` (output.ts).
 */
export interface GeneratorGenerate {
  type: 'generate';
  id: number;
  question: string;
  passages: GeneratorPassage[];
  /** Default DEFAULT_MAX_NEW_TOKENS. */
  maxNewTokens?: number;
}
/** Stops generation `id`; the worker answers with its `done` (stopped: 'cancelled'). Unknown ids are ignored. */
export interface GeneratorCancel {
  type: 'cancel';
  id: number;
}
export type GeneratorRequest = GeneratorInit | GeneratorGenerate | GeneratorCancel;

export type GeneratorResponse =
  /** The model is loaded. `wasm` for now: see generator.worker.ts on WebGPU. */
  | { type: 'ready'; device: 'webgpu' | 'wasm' }
  /** Bytes of the model files downloaded so far (absent when everything comes from the cache). */
  | { type: 'progress'; loaded: number; total: number }
  | { type: 'init-error'; message: string }
  /** Decoded text delta, streamed (whole words: transformers.js' TextStreamer holds back a partial word). */
  | { type: 'token'; id: number; text: string }
  /**
   * The generation ended. `text`: everything streamed, raw (not yet validated). `tokens`: tokens generated
   * (without the end-of-sequence token). `firstTokenMs`: from the start of this generation (a request waits
   * while another runs) to the first generated token, prompt processing included. `tokensPerSecond`: decoding speed after the first token (0 when fewer than 2 tokens).
   */
  | {
      type: 'done';
      id: number;
      text: string;
      /** The passages the prompt included (the size bounds may leave some out): the only `[n]` the text may cite. */
      cited: number[];
      tokens: number;
      firstTokenMs: number;
      tokensPerSecond: number;
      stopped: 'eos' | 'length' | 'cancelled';
    }
  | { type: 'generate-error'; id: number; message: string };
