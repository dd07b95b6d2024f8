#!/usr/bin/env node
/**
 * Writes a tiny, deterministic, NOT TRAINED stand-in for the generative answer model in the layout
 * transformers.js loads for the real default, `HuggingFaceTB/SmolLM2-360M-Instruct`: a llama-type causal LM
 * with a ChatML chat template, whose "answer" copies the start of passage [1] from a prompt built by
 * widget/generator/prompt.ts. The real weights cannot be downloaded here; with this double the real loading,
 * tokenising, KV-cache, streaming, stopping and fallback code runs, in Node and in Chromium.
 *
 *   node scripts/make-test-lm.mjs [out-dir]     (default test/fixtures/models/test-double/smollm2-copy)
 *
 * The tokenizer is in make-test-lm.bpe.mjs, the ONNX graph in make-test-lm.graph.mjs.
 *
 * Output is byte-identical from run to run (scripts/make-test-lm.test.ts checks it against the committed
 * fixture). It depends on demo/kb/*.md (the tokenizer's training text): after editing those, run it again.
 *
 * ── Tokenizer ──────────────────────────────────────────────────────────────────────────────────────────────
 * SmolLM2's real tokenizer is not available offline. This is a byte-level BPE in the real HF tokenizer.json
 * format with SmolLM2's pre-tokenizer (individual digits, then GPT-2's ByteLevel regex), ByteLevel decoder,
 * and SmolLM2's first three ids: 0 `<|endoftext|>`, 1 `<|im_start|>`, 2 `<|im_end|>` (special). Its merges are
 * learned here from demo/kb/*.md plus the prompt's own scaffolding (every pair seen twice or more: ≈ 860
 * merges, 1,121 tokens), so text becomes multi-byte tokens — 3.7 characters a token on demo/kb (in-sample),
 * 2.0 on this repository's README, against ≈ 4 for SmolLM2's 49,152-token vocabulary: the double streams more,
 * smaller pieces than the real model. Being byte-level, any text (case, punctuation, Markdown, code, emoji)
 * round-trips exactly.
 * Why not a word-level or character-level vocabulary: a byte-level BPE is what SmolLM2 uses, so streaming
 * deltas that end mid-character or mid-word, and special tokens split out of plain text, behave as with the
 * real model.
 *
 * ── Model: a copy machine in the KV cache ──────────────────────────────────────────────────────────────────
 * One layer, one KV head, head size 1 (config.json says so, so transformers.js sizes the empty cache
 * [1, 1, 0, 1]). The graph has the real decoder's inputs (input_ids, attention_mask, position_ids,
 * past_key_values.0.key/value) and outputs (logits [batch, seq, vocab], present.0.key/value), but instead of
 * attention:
 *   - present.0.key   = past key ++ the new token ids (as floats): the cache holds the whole sequence x.
 *   - present.0.value = past value ++ a state per new position; the last one says what comes next:
 *       s ≥ 0   emit x[s] (copy the token at position s),
 *       s = -1  emit `<|im_end|>` (end of sequence),
 *       s ≤ -2  emit the (-s-1)-th token of the tail " [1]".
 *   - Prefill (no past): s = the first token of passage [1]'s text, i.e. the token after the first newline
 *     following the first `<passage id="1"` in the sequence (prompt.ts's delimiter); -1 if there is none.
 *   - Each step: after copying x[s], the next state is s + 1, unless the copy is done (then -2, the tail):
 *       x[s + 1] starts the `\n</passage` that closes passage [1]   (end of the passage), or
 *       x[s] ends a sentence (. ! ? before quotes/brackets) and x[s+1] starts with a space or newline, once
 *         at least MIN_COPY tokens are copied                         (a sentence or more), or
 *       MAX_COPY tokens are copied.
 *     After the tail, `<|im_end|>`.
 *   - logits: +50 for the chosen token, 0 elsewhere, for every position of the input (only the last is read).
 * So for a prompt from prompt.ts the answer is the first sentence(s) of passage [1], verbatim, then " [1]",
 * then end of sequence: at most MAX_COPY + 4 tokens. Whatever passage [1] says is reproduced: `[9]`,
 * `<img src=x onerror=alert(1)>`, "I cannot answer that from these documents." — so citation validation,
 * sanitising and the fallback are exercised for real. The question is ignored (a real model reads it).
 * Batch size 1 only; greedy decoding assumed (the pipeline's default).
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BYTE_TO_CHAR, decodeToken, learnMerges, makeEncoder } from './make-test-lm.bpe.mjs';
import { buildModel } from './make-test-lm.graph.mjs';

export const MODEL_NAME = 'test-double/smollm2-copy';
export const DEFAULT_OUT = fileURLToPath(new URL(`../test/fixtures/models/${MODEL_NAME}/`, import.meta.url));
const KB_DIR = fileURLToPath(new URL('../demo/kb/', import.meta.url));

/** Copy at least this many tokens before stopping at a sentence end, and never more than MAX_COPY. */
export const MIN_COPY = 12;
export const MAX_COPY = 80;
const MERGES = 1500;
const SPECIAL = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];
const EOS_ID = 2;
/** What prompt.ts writes around a passage (kept in step by scripts/make-test-lm.test.ts, which uses prompt.ts). */
const OPEN_PASSAGE_1 = '<passage id="1"';
const CLOSE_PASSAGE = '\n</passage';
const TAIL = ' [1]';

/** SmolLM2-Instruct's chat template (ChatML, with its default system prompt when none is given). */
const CHAT_TEMPLATE =
  "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

/** Text the tokenizer learns from besides the documentation: the prompt's scaffolding. */
const SCAFFOLD = [
  '<passage id="1" title="Getting started" section="Install">\nText.\n</passage>\n\n<passage id="2" title="Configuration">\nText.\n</passage>',
  'Question: How do I install the widget?',
  'You answer questions using only the numbered passages. Cite them as [1], [2] or [3]. I cannot answer that from these documents.',
];

// ── Files ─────────────────────────────────────────────────────────────────────────────────────────────────

const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

/** Everything the model folder holds: file name → bytes or text. */
export async function buildTestLm() {
  const docs = [];
  for (const name of (await readdir(KB_DIR)).filter((n) => n.endsWith('.md')).sort())
    docs.push(await readFile(join(KB_DIR, name), 'utf8'));
  const merges = learnMerges([...docs, ...SCAFFOLD], MERGES);

  const tokens = [...SPECIAL, ...BYTE_TO_CHAR, ...merges.map((m) => m.replace(' ', ''))];
  const vocab = new Map();
  for (const token of tokens) if (!vocab.has(token)) vocab.set(token, vocab.size);
  // (Two merges may spell the same token, "a"+"bc" and "ab"+"c": one vocabulary entry, as in `tokenizers`.)
  const encode = makeEncoder(vocab, merges);
  const single = (text) => {
    const [id, ...rest] = encode(text);
    if (rest.length) throw new Error(`${JSON.stringify(text)} is not one token`);
    return id;
  };
  const strings = [...vocab.keys()].map((t, id) => (id < SPECIAL.length ? '' : decodeToken(t)));
  const ids = {
    open: encode(OPEN_PASSAGE_1),
    close: encode(CLOSE_PASSAGE),
    newline: single('\n'),
    tail: encode(TAIL),
    endsSentence: strings.map((s) => (/[.!?]["'”’)\]*_`]*$/.test(s) ? 1 : 0)),
    startsWithSpace: strings.map((s) => (/^\s/.test(s) ? 1 : 0)),
  };
  const modelBytes = buildModel({ vocabSize: vocab.size, ids, eos: EOS_ID, minCopy: MIN_COPY, maxCopy: MAX_COPY });

  const added = SPECIAL.map((content, id) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Digits', individual_digits: true },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
      ],
    },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(vocab),
      merges,
    },
  };
  const tokenizerConfig = {
    add_prefix_space: false,
    added_tokens_decoder: Object.fromEntries(added.map(({ id, ...token }) => [String(id), token])),
    additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
    bos_token: '<|im_start|>',
    chat_template: CHAT_TEMPLATE,
    clean_up_tokenization_spaces: false,
    eos_token: '<|im_end|>',
    model_max_length: 8192,
    pad_token: '<|im_end|>',
    tokenizer_class: 'GPT2Tokenizer',
    unk_token: '<|endoftext|>',
    vocab_size: vocab.size,
  };
  const config = {
    _comment: 'kb-chat test double (scripts/make-test-lm.mjs): copies passage [1]; not a trained model',
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    bos_token_id: 1,
    eos_token_id: EOS_ID,
    pad_token_id: EOS_ID,
    vocab_size: vocab.size,
    hidden_size: 1,
    intermediate_size: 1,
    num_hidden_layers: 1,
    num_attention_heads: 1,
    num_key_value_heads: 1,
    head_dim: 1,
    max_position_embeddings: 8192,
    tie_word_embeddings: true,
    torch_dtype: 'float32',
  };
  return {
    'config.json': json(config),
    'generation_config.json': json({ bos_token_id: 1, eos_token_id: EOS_ID, pad_token_id: EOS_ID }),
    'tokenizer.json': json(tokenizer),
    'tokenizer_config.json': json(tokenizerConfig),
    'special_tokens_map.json': json({
      additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
      bos_token: '<|im_start|>',
      eos_token: '<|im_end|>',
      pad_token: '<|im_end|>',
      unk_token: '<|endoftext|>',
    }),
    // What the worker asks for (dtype q4). The graph has no weights to quantize: the same bytes at any dtype.
    'onnx/model_q4.onnx': modelBytes,
  };
}

export async function writeTestLm(outDir = DEFAULT_OUT) {
  const files = await buildTestLm();
  for (const [name, content] of Object.entries(files)) {
    await mkdir(join(outDir, name, '..'), { recursive: true });
    await writeFile(join(outDir, name), content);
  }
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2] ?? DEFAULT_OUT;
  const files = await writeTestLm(outDir);
  for (const [name, content] of Object.entries(files)) console.log(`${join(outDir, name)}  ${content.length} bytes`);
}
