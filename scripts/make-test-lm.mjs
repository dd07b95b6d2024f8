#!/usr/bin/env node
/**
 * Writes a tiny, deterministic, NOT TRAINED stand-in for the generative answer model (issue 13) in the layout
 * transformers.js loads for the real default, `HuggingFaceTB/SmolLM2-360M-Instruct`: a llama-type causal LM
 * with a ChatML chat template, whose "answer" copies the start of passage [1] from a prompt built by
 * widget/generator/prompt.ts. The real weights cannot be downloaded here; with this double the real loading,
 * tokenising, KV-cache, streaming, stopping and fallback code runs, in Node and in Chromium.
 *
 *   node scripts/make-test-lm.mjs [out-dir]     (default test/fixtures/models/test-double/smollm2-copy)
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
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

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

// ── Byte-level BPE (what HF `tokenizers` does for GPT-2-style models) ─────────────────────────────────────

/** GPT-2's reversible map from bytes to printable characters. */
const BYTE_TO_CHAR = (() => {
  const keep = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const map = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) map[b] = String.fromCharCode(keep.includes(b) ? b : 256 + extra++);
  return map;
})();
const utf8 = new TextEncoder();
const BYTE_LEVEL = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** Digits(individual_digits) then ByteLevel(use_regex), as SmolLM2's tokenizer.json: words as byte characters. */
export function preTokenize(text) {
  return (text.match(/[^\d]+|\d/gu) ?? [])
    .flatMap((piece) => piece.match(BYTE_LEVEL) ?? [])
    .map((word) => Array.from(utf8.encode(word), (b) => BYTE_TO_CHAR[b]).join(''));
}

/** Learns up to `count` merges: the most frequent adjacent pair each time, ties broken by code-point order. */
function learnMerges(texts, count) {
  const freq = new Map();
  for (const text of texts) for (const word of preTokenize(text)) freq.set(word, (freq.get(word) ?? 0) + 1);
  const words = [...freq].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([word, n]) => ({ symbols: [...word], n }));
  const merges = [];
  while (merges.length < count) {
    const pairs = new Map();
    for (const { symbols, n } of words) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = `${symbols[i]} ${symbols[i + 1]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + n);
      }
    }
    let best = null;
    let bestN = 1; // a pair seen once is not worth a token
    for (const [key, n] of pairs) if (n > bestN || (n === bestN && best !== null && key < best)) [best, bestN] = [key, n];
    if (best === null) break;
    merges.push(best);
    const [a, b] = best.split(' ');
    for (const word of words) {
      const out = [];
      for (let i = 0; i < word.symbols.length; i++) {
        if (word.symbols[i] === a && word.symbols[i + 1] === b) out.push(a + b), i++;
        else out.push(word.symbols[i]);
      }
      word.symbols = out;
    }
  }
  return merges;
}

/** Encodes text with the learned merges (lowest rank first, leftmost on ties, as `tokenizers` does). */
function makeEncoder(vocab, merges) {
  const rank = new Map(merges.map((m, i) => [m, i]));
  return (text) =>
    preTokenize(text).flatMap((word) => {
      let symbols = [...word];
      for (;;) {
        let at = -1;
        let best = Infinity;
        for (let i = 0; i + 1 < symbols.length; i++) {
          const r = rank.get(`${symbols[i]} ${symbols[i + 1]}`);
          if (r !== undefined && r < best) [best, at] = [r, i];
        }
        if (at < 0) break;
        symbols = [...symbols.slice(0, at), symbols[at] + symbols[at + 1], ...symbols.slice(at + 2)];
      }
      return symbols.map((s) => vocab.get(s));
    });
}

const CHAR_TO_BYTE = new Map(BYTE_TO_CHAR.map((c, b) => [c, b]));
const decodeToken = (token) => new TextDecoder().decode(Uint8Array.from([...token], (c) => CHAR_TO_BYTE.get(c)));

// ── ONNX graph ────────────────────────────────────────────────────────────────────────────────────────────

const T = onnx.TensorProto.DataType;
const i64 = (name, values, dims = [values.length]) => onnx.TensorProto.create({ name, dims, dataType: T.INT64, int64Data: values });
const f32 = (name, values, dims = [values.length]) =>
  onnx.TensorProto.create({ name, dims, dataType: T.FLOAT, rawData: new Uint8Array(Float32Array.from(values).buffer) });
const attr = (name, value) =>
  onnx.AttributeProto.create(
    Array.isArray(value)
      ? { name, type: onnx.AttributeProto.AttributeType.INTS, ints: value }
      : { name, type: onnx.AttributeProto.AttributeType.INT, i: value },
  );
const dim = (d) => onnx.TensorShapeProto.Dimension.create(typeof d === 'string' ? { dimParam: d } : { dimValue: d });
const valueInfo = (name, elemType, dims) =>
  onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({ tensorType: onnx.TypeProto.Tensor.create({ elemType, shape: onnx.TensorShapeProto.create({ dim: dims.map(dim) }) }) }),
  });

/** A tiny graph builder: `op('Add', [a, b])` returns the new output's name. */
function graphBuilder() {
  const nodes = [];
  const initializers = [];
  let counter = 0;
  const op = (opType, inputs, attributes = {}, name = `${opType.toLowerCase()}_${counter++}`) => {
    nodes.push(onnx.NodeProto.create({ opType, input: inputs, output: [name], name: `n_${name}`, attribute: Object.entries(attributes).map(([k, v]) => attr(k, v)) }));
    return name;
  };
  const constI = (values, dims) => {
    const name = `c_${counter++}`;
    initializers.push(i64(name, values, dims));
    return name;
  };
  const constF = (values, dims) => {
    const name = `c_${counter++}`;
    initializers.push(f32(name, values, dims));
    return name;
  };
  return { nodes, initializers, op, constI, constF };
}

function buildGraph({ vocabSize, ids }) {
  const g = graphBuilder();
  const { op, constI, constF } = g;
  const scalar = (v) => constI([v], []);
  const flat = constI([-1]);

  // The sequence so far: past ids ++ new ids.
  const newIds = op('Reshape', [op('Cast', ['input_ids'], { to: T.FLOAT }), constI([1, 1, -1, 1])]);
  op('Concat', ['past_key_values.0.key', newIds], { axis: 2 }, 'present.0.key');
  const x = op('Cast', [op('Reshape', ['present.0.key', flat])], { to: T.INT64 });
  const len1 = op('Shape', [x]); // [L]
  const len = op('Reshape', [len1, constI([], [0])]); // L
  const positions = op('Range', [scalar(0), len, scalar(1)]);

  /** Where the token sequence `pattern` starts at each position (bool [L]). */
  const matches = (pattern) => {
    const padded = op('Concat', [x, constI(pattern.map(() => -1))], { axis: 0 });
    const eqs = pattern.map((id, i) => op('Equal', [op('Slice', [padded, constI([i]), op('Add', [len1, constI([i])]), constI([0])]), scalar(id)]));
    return eqs.reduce((a, b) => op('And', [a, b]));
  };
  /** First true position (int64 scalar) and whether there is one (bool scalar). */
  const first = (mask) => {
    const asFloat = op('Cast', [mask], { to: T.FLOAT });
    return [op('ArgMax', [asFloat], { axis: 0, keepdims: 0 }), op('Greater', [op('ReduceMax', [asFloat], { keepdims: 0 }), constF([0], [])])];
  };

  // Passage [1]'s text: from the token after the first newline after `<passage id="1"` to `\n</passage`.
  const [openAt, openFound] = first(matches(ids.open));
  const [newlineAt, newlineFound] = first(op('And', [op('Equal', [x, scalar(ids.newline)]), op('Greater', [positions, openAt])]));
  const start = op('Add', [newlineAt, scalar(1)]);
  const startFound = op('And', [openFound, newlineFound]);
  const [closeAt, closeFound] = first(op('And', [matches(ids.close), op('GreaterOrEqual', [positions, start])]));
  const end = op('Where', [closeFound, closeAt, scalar(2 ** 40)]);

  // The state of the last past position (-1 before the first step, when there is no past).
  const pastLen = op('Gather', [op('Shape', ['past_key_values.0.value']), scalar(2)]);
  const isPrefill = op('Equal', [pastLen, scalar(0)]);
  const pastStates = op('Cast', [op('Reshape', ['past_key_values.0.value', flat])], { to: T.INT64 });
  const prev = op('Gather', [op('Concat', [constI([-1]), pastStates], { axis: 0 }), pastLen]);

  // After copying x[prev]: go on with prev + 1, or switch to the tail.
  const last = op('Sub', [len, scalar(1)]);
  const prevAt = op('Max', [prev, scalar(0)]);
  const copied = op('Gather', [x, prevAt]);
  const following = op('Gather', [x, op('Min', [op('Add', [prevAt, scalar(1)]), last])]);
  const count = op('Add', [op('Sub', [prev, start]), scalar(1)]);
  const gatherFlag = (table, token) => op('Cast', [op('Gather', [constI(table), token])], { to: T.BOOL });
  const sentenceEnd = op('And', [op('And', [gatherFlag(ids.endsSentence, copied), gatherFlag(ids.startsWithSpace, following)]), op('GreaterOrEqual', [count, scalar(MIN_COPY)])]);
  const done = op('Or', [op('Or', [op('GreaterOrEqual', [op('Add', [prev, scalar(1)]), end]), sentenceEnd]), op('GreaterOrEqual', [count, scalar(MAX_COPY)])]);
  const afterCopy = op('Where', [done, scalar(-2), op('Add', [prev, scalar(1)])]);
  // Tail states -2 … -(m+1), then -1 (end of sequence) for good.
  const down = op('Sub', [prev, scalar(1)]);
  const afterTail = op('Where', [op('Or', [op('Equal', [prev, scalar(-1)]), op('Less', [down, scalar(-(ids.tail.length + 1))])]), scalar(-1), down]);
  const stepState = op('Where', [op('GreaterOrEqual', [prev, scalar(0)]), afterCopy, afterTail]);
  const state = op('Where', [isPrefill, op('Where', [startFound, start, scalar(-1)]), stepState]);

  // Every new position carries the state (only the last is read).
  const newLen = op('Gather', [op('Shape', ['input_ids']), constI([1])]); // [S]
  const stateCol = op('Expand', [op('Reshape', [op('Cast', [state], { to: T.FLOAT }), constI([1, 1, 1, 1])]), op('Concat', [constI([1, 1]), newLen, constI([1])], { axis: 0 })]);
  op('Concat', ['past_key_values.0.value', stateCol], { axis: 2 }, 'present.0.value');

  // The token to emit, as logits: one-hot ×50 on every new position.
  const copyToken = op('Gather', [x, op('Max', [state, scalar(0)])]);
  const tailIndex = op('Max', [op('Min', [op('Sub', [op('Neg', [state]), scalar(1)]), scalar(ids.tail.length)]), scalar(0)]);
  const tailToken = op('Gather', [constI([EOS_ID, ...ids.tail]), tailIndex]);
  const token = op('Where', [op('GreaterOrEqual', [state, scalar(0)]), copyToken, tailToken]);
  const oneHot = op('Mul', [op('Cast', [op('Equal', [op('Range', [scalar(0), scalar(vocabSize), scalar(1)]), token])], { to: T.FLOAT }), constF([50], [])]);
  const row = op('Expand', [op('Reshape', [oneHot, constI([1, 1, vocabSize])]), op('Concat', [constI([1]), newLen, constI([vocabSize])], { axis: 0 })]);
  // attention_mask and position_ids are read (times zero) so the graph has the real decoder's inputs.
  const unused = op('Mul', [op('Cast', [op('Add', [op('ReduceSum', ['attention_mask'], { keepdims: 0 }), op('ReduceSum', ['position_ids'], { keepdims: 0 })])], { to: T.FLOAT }), constF([0], [])]);
  op('Add', [row, unused], {}, 'logits');

  const cache = (name) => valueInfo(name, T.FLOAT, ['batch_size', 1, name.startsWith('past') ? 'past_sequence_length' : 'total_sequence_length', 1]);
  return onnx.GraphProto.create({
    name: 'kb_chat_copy_passage_1',
    node: g.nodes,
    initializer: g.initializers,
    input: [
      valueInfo('input_ids', T.INT64, ['batch_size', 'sequence_length']),
      valueInfo('attention_mask', T.INT64, ['batch_size', 'total_sequence_length']),
      valueInfo('position_ids', T.INT64, ['batch_size', 'sequence_length']),
      cache('past_key_values.0.key'),
      cache('past_key_values.0.value'),
    ],
    output: [valueInfo('logits', T.FLOAT, ['batch_size', 'sequence_length', vocabSize]), cache('present.0.key'), cache('present.0.value')],
  });
}

// ── Files ─────────────────────────────────────────────────────────────────────────────────────────────────

const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

/** Everything the model folder holds: file name → bytes or text. */
export async function buildTestLm() {
  const docs = [];
  for (const name of (await readdir(KB_DIR)).filter((n) => n.endsWith('.md')).sort()) docs.push(await readFile(join(KB_DIR, name), 'utf8'));
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
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: 17 })],
    producerName: 'kb-chat scripts/make-test-lm.mjs (a test double, not a trained model)',
    graph: buildGraph({ vocabSize: vocab.size, ids }),
  });

  const added = SPECIAL.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }));
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
    // What the worker asks for (dtype q8). The graph has no weights to quantize: the same bytes at any dtype.
    'onnx/model_quantized.onnx': onnx.ModelProto.encode(model).finish(),
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
