/**
 * The defaults of the settings the environment (server/config/index.ts) and an admin
 * (`/api/admin/settings`) can change, each defined here once. A leaf module, imported by config, the app,
 * retrieval and the console alike, so none of them keeps its own copy of a number.
 */

export const DEFAULT_EMBED_MODEL = 'Xenova/all-MiniLM-L6-v2';
/**
 * CHAT_EVIDENCE_THRESHOLD: the vector gate's cosine similarity, 0.35 as the product's configuration contract
 * states. With the vector coverage floor on (CHAT_VECTOR_MIN_COVERAGE 0.3) the three docs sites measured best
 * at 0.23 with the test-double embedder, whose cosines are not MiniLM's; that pair is an opt-in
 * (server/retrieval/gate.ts says what it measured).
 */
export const DEFAULT_EVIDENCE_THRESHOLD = 0.35;
/**
 * SmolLM2-360M-Instruct: the smallest instruct model that follows "answer only from these passages" well enough
 * to be worth its download (docs/generative-mode.md gives its size and why not the 135M or Qwen2.5-0.5B).
 */
export const DEFAULT_GENERATION_MODEL = 'HuggingFaceTB/SmolLM2-360M-Instruct';
/** KB_ANSWER_MODE: quoted passages, no model in the browser. */
export const DEFAULT_ANSWER_MODE = 'extractive' as const;
/** KB_RATE_LIMIT / KB_RATE_LIMIT_WINDOW: chat and search requests per visitor per window (seconds). */
export const DEFAULT_RATE_LIMIT = { limit: 20, windowSeconds: 60 } as const;
/** CHAT_CONFIDENCE_HIGH / CHAT_CONFIDENCE_MEDIUM: the evidence at which an answer's confidence is high / medium. */
export const DEFAULT_CONFIDENCE = { high: 0.6, medium: 0.45 } as const;
