/**
 * The ONNX graph of scripts/make-test-lm.mjs: a decoder with the real llama export's inputs and outputs that
 * copies passage [1] through its KV cache (the design is described in make-test-lm.mjs).
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const T = onnx.TensorProto.DataType;
const i64 = (name, values, dims = [values.length]) =>
  onnx.TensorProto.create({ name, dims, dataType: T.INT64, int64Data: values });
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
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType,
        shape: onnx.TensorShapeProto.create({ dim: dims.map(dim) }),
      }),
    }),
  });

/** A tiny graph builder: `op('Add', [a, b])` returns the new output's name. */
function graphBuilder() {
  const nodes = [];
  const initializers = [];
  let counter = 0;
  const op = (opType, inputs, attributes = {}, name = `${opType.toLowerCase()}_${counter++}`) => {
    nodes.push(
      onnx.NodeProto.create({
        opType,
        input: inputs,
        output: [name],
        name: `n_${name}`,
        attribute: Object.entries(attributes).map(([k, v]) => attr(k, v)),
      }),
    );
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

/**
 * The model file's bytes. `ids`: token ids of the prompt's landmarks and per-token flags (make-test-lm.mjs);
 * `eos`: the end-of-sequence id; a sentence end stops the copy after `minCopy` tokens, `maxCopy` always does.
 */
export function buildModel({ vocabSize, ids, eos, minCopy, maxCopy }) {
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: 17 })],
    producerName: 'kb-chat scripts/make-test-lm.mjs (a test double, not a trained model)',
    graph: buildGraph({ vocabSize, ids, eos, minCopy, maxCopy }),
  });
  return onnx.ModelProto.encode(model).finish();
}

function buildGraph({ vocabSize, ids, eos, minCopy, maxCopy }) {
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
    const eqs = pattern.map((id, i) =>
      op('Equal', [op('Slice', [padded, constI([i]), op('Add', [len1, constI([i])]), constI([0])]), scalar(id)]),
    );
    return eqs.reduce((a, b) => op('And', [a, b]));
  };
  /** First true position (int64 scalar) and whether there is one (bool scalar). */
  const first = (mask) => {
    const asFloat = op('Cast', [mask], { to: T.FLOAT });
    return [
      op('ArgMax', [asFloat], { axis: 0, keepdims: 0 }),
      op('Greater', [op('ReduceMax', [asFloat], { keepdims: 0 }), constF([0], [])]),
    ];
  };

  // Passage [1]'s text: from the token after the first newline after `<passage id="1"` to `\n</passage`.
  const [openAt, openFound] = first(matches(ids.open));
  const [newlineAt, newlineFound] = first(
    op('And', [op('Equal', [x, scalar(ids.newline)]), op('Greater', [positions, openAt])]),
  );
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
  const sentenceEnd = op('And', [
    op('And', [gatherFlag(ids.endsSentence, copied), gatherFlag(ids.startsWithSpace, following)]),
    op('GreaterOrEqual', [count, scalar(minCopy)]),
  ]);
  const done = op('Or', [
    op('Or', [op('GreaterOrEqual', [op('Add', [prev, scalar(1)]), end]), sentenceEnd]),
    op('GreaterOrEqual', [count, scalar(maxCopy)]),
  ]);
  const afterCopy = op('Where', [done, scalar(-2), op('Add', [prev, scalar(1)])]);
  // Tail states -2 … -(m+1), then -1 (end of sequence) for good.
  const down = op('Sub', [prev, scalar(1)]);
  const afterTail = op('Where', [
    op('Or', [op('Equal', [prev, scalar(-1)]), op('Less', [down, scalar(-(ids.tail.length + 1))])]),
    scalar(-1),
    down,
  ]);
  const stepState = op('Where', [op('GreaterOrEqual', [prev, scalar(0)]), afterCopy, afterTail]);
  const state = op('Where', [isPrefill, op('Where', [startFound, start, scalar(-1)]), stepState]);

  // Every new position carries the state (only the last is read).
  const newLen = op('Gather', [op('Shape', ['input_ids']), constI([1])]); // [S]
  const stateCol = op('Expand', [
    op('Reshape', [op('Cast', [state], { to: T.FLOAT }), constI([1, 1, 1, 1])]),
    op('Concat', [constI([1, 1]), newLen, constI([1])], { axis: 0 }),
  ]);
  op('Concat', ['past_key_values.0.value', stateCol], { axis: 2 }, 'present.0.value');

  // The token to emit, as logits: one-hot ×50 on every new position.
  const copyToken = op('Gather', [x, op('Max', [state, scalar(0)])]);
  const tailIndex = op('Max', [
    op('Min', [op('Sub', [op('Neg', [state]), scalar(1)]), scalar(ids.tail.length)]),
    scalar(0),
  ]);
  const tailToken = op('Gather', [constI([eos, ...ids.tail]), tailIndex]);
  const token = op('Where', [op('GreaterOrEqual', [state, scalar(0)]), copyToken, tailToken]);
  const oneHot = op('Mul', [
    op('Cast', [op('Equal', [op('Range', [scalar(0), scalar(vocabSize), scalar(1)]), token])], { to: T.FLOAT }),
    constF([50], []),
  ]);
  const row = op('Expand', [
    op('Reshape', [oneHot, constI([1, 1, vocabSize])]),
    op('Concat', [constI([1]), newLen, constI([vocabSize])], { axis: 0 }),
  ]);
  // attention_mask and position_ids are read (times zero) so the graph has the real decoder's inputs.
  const unused = op('Mul', [
    op(
      'Cast',
      [
        op('Add', [
          op('ReduceSum', ['attention_mask'], { keepdims: 0 }),
          op('ReduceSum', ['position_ids'], { keepdims: 0 }),
        ]),
      ],
      { to: T.FLOAT },
    ),
    constF([0], []),
  ]);
  op('Add', [row, unused], {}, 'logits');

  const cache = (name) =>
    valueInfo(name, T.FLOAT, [
      'batch_size',
      1,
      name.startsWith('past') ? 'past_sequence_length' : 'total_sequence_length',
      1,
    ]);
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
    output: [
      valueInfo('logits', T.FLOAT, ['batch_size', 'sequence_length', vocabSize]),
      cache('present.0.key'),
      cache('present.0.value'),
    ],
  });
}
