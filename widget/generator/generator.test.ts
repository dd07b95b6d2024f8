/**
 * The built generator worker (test-results/widget-dist/kb-chat-generator.js, built by web-test-runner.config.mjs)
 * in Chromium with the real transformers.js + ONNX Runtime wasm, loading the test-double LM
 * (scripts/make-test-lm.mjs) from our own origin (/models/, /ort/, as the real server serves them).
 * Prints the first-token time and tokens/s it measures (the test double's: the cost of the machinery, not of
 * a real model).
 */
import { expect } from '@open-wc/testing';
import type { GeneratorPassage, GeneratorRequest, GeneratorResponse } from './messages.ts';
import { validateCitations } from './output.ts';
import { fakeLog, resetFake } from '../test/fake-log.ts';

const WORKER_URL = new URL('../../test-results/widget-dist/kb-chat-generator.js', import.meta.url);
const MODEL = 'test-double/smollm2-copy';
const init = (model = MODEL): GeneratorRequest => ({
  type: 'init',
  model,
  modelsUrl: new URL('/models/', location.href).href,
  wasmUrl: new URL('/ort/', location.href).href,
});

type Done = Extract<GeneratorResponse, { type: 'done' }>;

/** Posts `request` and collects the worker's messages until `until` says stop; fails on a worker error. */
function collect(
  worker: Worker,
  request: GeneratorRequest | null,
  until: (m: GeneratorResponse) => boolean,
): Promise<GeneratorResponse[]> {
  return new Promise((resolve, reject) => {
    const seen: GeneratorResponse[] = [];
    const onMessage = (event: MessageEvent<GeneratorResponse>) => {
      seen.push(event.data);
      if (!until(event.data)) return;
      worker.removeEventListener('message', onMessage);
      resolve(seen);
    };
    worker.addEventListener('message', onMessage);
    worker.addEventListener('error', (event) => reject(new Error(event.message)), { once: true });
    if (request) worker.postMessage(request);
  });
}

const endOf = (id: number) => (m: GeneratorResponse) =>
  (m.type === 'done' || m.type === 'generate-error') && m.id === id;

async function generate(worker: Worker, id: number, passages: GeneratorPassage[], maxNewTokens?: number) {
  const messages = await collect(
    worker,
    { type: 'generate', id, question: 'How long do refunds take?', passages, maxNewTokens },
    endOf(id),
  );
  const done = messages.at(-1)!;
  if (done.type !== 'done') throw new Error(`unexpected ${JSON.stringify(done)}`);
  const deltas = messages.flatMap((m) => (m.type === 'token' && m.id === id ? [m.text] : []));
  return { done, deltas };
}

const REFUNDS: GeneratorPassage = {
  n: 1,
  title: 'Refund policy',
  section: 'Returns',
  text: 'Refunds are accepted within **30 days** of purchase, provided the item is unused. After that, store credit is offered.',
};
const WARRANTY: GeneratorPassage = {
  n: 2,
  title: 'Warranty',
  section: null,
  text: 'The warranty covers manufacturing defects for two years.',
};
/** No sentence end: the double copies its maximum (80 tokens) before " [1]". */
const LONG: GeneratorPassage = {
  ...REFUNDS,
  text: Array.from({ length: 40 }, (_, i) => `refund step ${i}`).join(', '),
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('generator worker', () => {
  let worker: Worker;

  before(async () => {
    await resetFake();
    worker = new Worker(WORKER_URL, { type: 'module' });
    const messages = await collect(worker, init(), (m) => m.type === 'ready' || m.type === 'init-error');
    expect(messages.at(-1), JSON.stringify(messages.at(-1))).to.deep.equal({ type: 'ready', device: 'wasm' });
    // Download progress was reported on the way (bytes of the model files).
    expect(messages.some((m) => m.type === 'progress')).to.equal(true);
  });

  after(() => worker.terminate());

  it('asks only for the q4 model file and the plain CPU ONNX Runtime wasm, from this origin', async () => {
    // (Either may come from the HTTP cache or the Cache API when another test file loaded it first: then it is
    // not in the fake API's log, so this checks what was asked for, not that everything was.)
    const assets = (await fakeLog()).assets;
    const onnx = assets.filter((path) => path.startsWith('/models/') && path.endsWith('.onnx'));
    expect(
      onnx.every((path) => path === `/models/${MODEL}/onnx/model_q4.onnx`),
      onnx.join(),
    ).to.equal(true);
    const ort = assets.filter((path) => path.startsWith('/ort/'));
    expect(
      ort.every((path) => /^\/ort\/\d+\.\d+\.\d+[\w.-]*\/ort-wasm-simd-threaded\.wasm$/.test(path)),
      ort.join(),
    ).to.equal(true);
  });

  it('streams the answer as token deltas, then done with its text, token count and timings', async () => {
    const { done, deltas } = await generate(worker, 1, [REFUNDS, WARRANTY]);
    const expected = 'Refunds are accepted within **30 days** of purchase, provided the item is unused. [1]';
    expect(done.text).to.equal(expected);
    expect(deltas.join('')).to.equal(expected);
    expect(deltas.length).to.be.greaterThan(5);
    expect(done.stopped).to.equal('eos');
    expect(done.tokens).to.be.within(20, 60);
    expect(done.firstTokenMs).to.be.within(0.01, 10_000);
    expect(done.tokensPerSecond).to.be.greaterThan(1);
  });

  it('stops at maxNewTokens', async () => {
    const { done } = await generate(worker, 2, [REFUNDS], 4);
    expect(done.stopped).to.equal('length');
    expect(done.tokens).to.equal(4);
  });

  it('passes injected citations and HTML through raw (the widget validates and sanitises)', async () => {
    const hostile = 'Refunds take 30 days [9] <img src=x onerror=alert(1)> for every order placed online today.';
    const { done } = await generate(worker, 3, [{ ...REFUNDS, text: hostile }, WARRANTY]);
    expect(done.text).to.equal(`${hostile} [1]`);
    expect(validateCitations(done.text, new Set([1, 2]))).to.equal(
      'Refunds take 30 days <img src=x onerror=alert(1)> for every order placed online today. [1]',
    );
  });

  it('a cancel sent with the request stops it before any text', async () => {
    const pending = collect(worker, null, endOf(4));
    worker.postMessage({ type: 'generate', id: 4, question: 'q', passages: [LONG] } satisfies GeneratorRequest);
    worker.postMessage({ type: 'cancel', id: 4 } satisfies GeneratorRequest);
    const done = (await pending).at(-1) as Done;
    expect(done.type).to.equal('done');
    expect(done.stopped).to.equal('cancelled');
    expect(done.tokens).to.be.at.most(1);
  });

  it('a cancel mid-stream stops it within a few tokens; the next request runs normally', async () => {
    const full = (await generate(worker, 5, [LONG])).done;
    expect(full.stopped).to.equal('eos');
    const messages = await collect(worker, { type: 'generate', id: 6, question: 'q', passages: [LONG] }, (m) => {
      if (m.type === 'token' && m.id === 6) worker.postMessage({ type: 'cancel', id: 6 } satisfies GeneratorRequest);
      return endOf(6)(m);
    });
    const done = messages.at(-1) as Done;
    expect(done.stopped).to.equal('cancelled');
    expect(done.tokens).to.be.lessThan(full.tokens);
    expect(full.text.startsWith(done.text)).to.equal(true);
    worker.postMessage({ type: 'cancel', id: 999 } satisfies GeneratorRequest); // unknown: ignored
    expect((await generate(worker, 7, [REFUNDS])).done.stopped).to.equal('eos');
  });

  it('reports generate-error without passages', async () => {
    const [error] = await collect(worker, { type: 'generate', id: 8, question: 'q', passages: [] }, endOf(8));
    expect(error).to.deep.include({ type: 'generate-error', id: 8 });
  });

  it('measures first token and tokens/s with a prompt at its size bound (10 runs)', async () => {
    // Passage [1] without a sentence end (80 copied tokens + " [1]"), then passages up to the prompt's 3,600
    // characters: the largest prompt the worker builds.
    const filler = (n: number): GeneratorPassage => ({
      n,
      title: `Filler ${n}`,
      section: null,
      text: 'Refund details follow here. '.repeat(60),
    });
    const runs: Done[] = [];
    for (let i = 0; i < 10; i++)
      runs.push((await generate(worker, 100 + i, [LONG, filler(2), filler(3), filler(4)])).done);
    for (const run of runs) expect(run.tokens).to.be.greaterThan(80);
    const first = runs.map((r) => r.firstTokenMs).sort((a, b) => a - b);
    const speed = runs.map((r) => r.tokensPerSecond).sort((a, b) => a - b);
    console.log(
      `generator, test double ${MODEL}, wasm, Chromium, ${runs[0]!.tokens} tokens a run, 10 runs: ` +
        `first token p50 ${median(first)} ms (min ${first[0]}, max ${first.at(-1)}); ` +
        `decoding p50 ${median(speed)} tokens/s (min ${speed[0]}, max ${speed.at(-1)})`,
    );
    expect(median(first)).to.be.greaterThan(0);
    expect(median(speed)).to.be.greaterThan(0);
  });
});

describe('generator bundle', () => {
  it('is its own content-hashed entry in the build manifest and sizes', async () => {
    const manifest = (await (await fetch('/test-results/widget-dist/manifest.json')).json()) as { generator: string };
    expect(manifest.generator).to.match(/^kb-chat-generator\.[0-9a-f]{10}\.js$/);
    expect((await fetch(`/test-results/widget-dist/${manifest.generator}`)).ok).to.equal(true);
    const sizes = (await (await fetch('/test-results/widget-dist/sizes.json')).json()) as {
      file: string;
      gzip: number;
    }[];
    const generator = sizes.find((s) => s.file.endsWith('/kb-chat-generator.js'));
    expect(generator?.gzip).to.be.greaterThan(50_000); // transformers.js + ONNX Runtime are in it, not in the UI
  });
});

describe('generator worker without a model', () => {
  it('reports init-error for a missing model, and generate-error before init', async () => {
    const worker = new Worker(WORKER_URL, { type: 'module' });
    try {
      const [early] = await collect(worker, { type: 'generate', id: 1, question: 'q', passages: [REFUNDS] }, endOf(1));
      expect(early).to.deep.include({ type: 'generate-error', id: 1 });
      const messages = await collect(
        worker,
        init('test-double/no-such-model'),
        (m) => m.type === 'ready' || m.type === 'init-error',
      );
      expect(messages.at(-1)!.type).to.equal('init-error');
    } finally {
      worker.terminate();
    }
  });
});
