/**
 * The embedder worker with the real transformers.js + ONNX Runtime wasm in Chromium, loading the
 * test-double model from our own origin (/models/, /ort/ are served by the test server like the real one).
 */
import { expect } from '@open-wc/testing';
import type { EmbedderRequest, EmbedderResponse } from './messages.ts';
import { WORKER_URL, fakeLog, resetFake } from '../test/helpers.ts';

const progress: EmbedderResponse[] = [];

function call(worker: Worker, request: EmbedderRequest): Promise<EmbedderResponse> {
  return new Promise((resolve, reject) => {
    const onMessage = (event: MessageEvent<EmbedderResponse>) => {
      if (event.data.type === 'progress') return void progress.push(event.data); // loading progress, not a reply
      worker.removeEventListener('message', onMessage);
      resolve(event.data);
    };
    worker.addEventListener('message', onMessage);
    worker.addEventListener('error', (event) => reject(new Error(event.message)), { once: true });
    worker.postMessage(request);
  });
}

async function embed(worker: Worker, text: string): Promise<number[]> {
  const response = await call(worker, { type: 'embed', id: 1, text });
  if (response.type !== 'embedding') throw new Error(`unexpected ${JSON.stringify(response)}`);
  return response.vector;
}

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('embedder worker', () => {
  let worker: Worker;

  before(async () => {
    await resetFake();
    worker = new Worker(WORKER_URL, { type: 'module' });
    const ready = await call(worker, {
      type: 'init',
      model: 'test-double/bert-384',
      modelsUrl: new URL('/models/', location.href).href,
      wasmUrl: new URL('/ort/', location.href).href,
    });
    expect(ready, JSON.stringify(ready)).to.deep.equal({ type: 'ready' });
    // Download progress was reported on the way (bytes of the model files).
    expect(progress.length).to.be.greaterThan(0);
  });

  after(() => worker.terminate());

  it('returns 384 finite numbers with unit norm', async () => {
    const vector = await embed(worker, 'What is the refund policy?');
    expect(vector).to.have.length(384);
    expect(vector.every(Number.isFinite)).to.equal(true);
    expect(Math.sqrt(dot(vector, vector))).to.be.closeTo(1, 1e-3);
  });

  it('really runs the model: shared content words score high, unrelated text near zero', async () => {
    const question = await embed(worker, 'What is the refund policy?');
    const related = await embed(worker, 'Our refund policy allows returns within 30 days.');
    const unrelated = await embed(worker, 'The weather in Paris is sunny today.');
    expect(dot(question, related)).to.be.greaterThan(0.4);
    expect(Math.abs(dot(question, unrelated))).to.be.lessThan(0.2);
  });

  it('fetched everything from this origin; the only ONNX Runtime file is the plain (CPU) wasm', async () => {
    const response = await call(worker, { type: 'resources', id: 2 });
    if (response.type !== 'resources') throw new Error('unexpected response');
    const urls = response.entries.map((entry) => entry.url);
    const foreign = urls.filter((url) => new URL(url).origin !== location.origin);
    expect(foreign).to.deep.equal([]);
    expect((await fakeLog()).csp).to.deep.equal([]);
    // Resource Timing lists HTTP-cache hits too, so this holds even when an earlier test file loaded the wasm.
    const ort = [...new Set(urls.map((url) => new URL(url).pathname).filter((p) => p.startsWith('/ort/')))];
    // Under the version of the ONNX Runtime the embedder was built with: a versioned URL, cacheable for a year.
    expect(ort).to.have.length(1);
    expect(ort[0]).to.match(/^\/ort\/\d+\.\d+\.\d+[\w.-]*\/ort-wasm-simd-threaded\.wasm$/);
  });
});
