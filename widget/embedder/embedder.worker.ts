/**
 * The embedder Web Worker: turns a question into the same 384-number sentence vector the documents were
 * indexed with. It is the only module that imports transformers.js (≈ 150 KB gz + a 14 MB wasm), so the
 * page pays for it only once the chat panel is opened, and inference never blocks the page's main thread.
 */
import { pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { downloadProgress, useModelsFrom } from '../workers/transformers-setup.ts';
import type { EmbedderInit, EmbedderRequest, EmbedderResponse } from './messages.ts';

export { ORT_VERSION, ORT_WASM_FILE } from '../workers/transformers-setup.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
let extractor: Promise<FeatureExtractionPipeline> | undefined;

function post(message: EmbedderResponse): void {
  scope.postMessage(message);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function load({ model, modelsUrl, wasmUrl }: EmbedderInit): Promise<FeatureExtractionPipeline> {
  useModelsFrom({ modelsUrl, wasmUrl }, scope.location.origin);
  return pipeline('feature-extraction', model, {
    dtype: 'q8',
    device: 'wasm',
    progress_callback: downloadProgress((loaded, total) => post({ type: 'progress', loaded, total })),
  }) as Promise<FeatureExtractionPipeline>;
}

async function embed(text: string): Promise<number[]> {
  if (!extractor) throw new Error('embedder not initialised');
  const output = await (await extractor)(text, { pooling: 'mean', normalize: true });
  return Array.from(output.data as Float32Array);
}

scope.addEventListener('message', async (event: MessageEvent<EmbedderRequest>) => {
  const request = event.data;
  switch (request.type) {
    case 'init':
      try {
        extractor ??= load(request);
        const ready = await extractor;
        // Warm-up: the first run compiles kernels; doing it now keeps the first question fast.
        await ready('warm up', { pooling: 'mean', normalize: true });
        post({ type: 'ready' });
      } catch (error) {
        extractor = undefined;
        post({ type: 'init-error', message: errorMessage(error) });
      }
      break;
    case 'embed':
      try {
        post({ type: 'embedding', id: request.id, vector: await embed(request.text) });
      } catch (error) {
        post({ type: 'embed-error', id: request.id, message: errorMessage(error) });
      }
      break;
    case 'resources':
      post({
        type: 'resources',
        id: request.id,
        entries: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((entry) => ({
          url: entry.name,
          transferSize: entry.transferSize,
        })),
      });
      break;
  }
});
