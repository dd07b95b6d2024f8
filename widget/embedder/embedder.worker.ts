/**
 * The embedder Web Worker: turns a question into the same 384-number sentence vector the documents were
 * indexed with. It is the only module that imports transformers.js (≈ 150 KB gz + a 14 MB wasm), so the
 * page pays for it only once the chat panel is opened, and inference never blocks the page's main thread.
 */
import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import type { EmbedderInit, EmbedderRequest, EmbedderResponse } from './messages.ts';

/**
 * The binary matching the ONNX Runtime build bundled into this worker: the CPU-only `onnxruntime-web/wasm`
 * (esbuild.config.mjs aliases transformers.js' WebGPU import to it; 14 MB instead of 27 MB).
 */
export const ORT_WASM_FILE = 'ort-wasm-simd-threaded.wasm';

/**
 * The version of that ONNX Runtime build, compiled in by esbuild.config.mjs. The wasm is fetched from
 * `<ort_wasm_url><version>/`: a versioned URL, so servers can let browsers cache it for a year.
 */
declare const __ORT_VERSION__: string;
export const ORT_VERSION = __ORT_VERSION__;

const scope = self as unknown as DedicatedWorkerGlobalScope;
let extractor: Promise<FeatureExtractionPipeline> | undefined;

function post(message: EmbedderResponse): void {
  scope.postMessage(message);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function load({ model, modelsUrl, wasmUrl }: EmbedderInit): Promise<FeatureExtractionPipeline> {
  // Everything comes from the API's origin: no model hub, no CDN (transformers.js defaults to both).
  const models = new URL(modelsUrl);
  if (models.origin === scope.location.origin) {
    // transformers.js 4.3 treats an absolute http(s) localModelPath as "not local" and then finds no
    // tokenizer files, so a same-origin folder must be given as a path.
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = models.pathname;
  } else {
    // An API on another origin than this script: its model folder is addressed as the "remote" host, with
    // the hub's `{model}/resolve/{revision}/` layout replaced by our flat `{model}/` layout.
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.remoteHost = models.href;
    env.remotePathTemplate = '{model}/';
  }
  const wasm = env.backends.onnx.wasm;
  if (wasm) {
    // Only the .wasm is given: ORT then uses the Emscripten glue bundled into this worker, so exactly one
    // file is fetched (a prefix would also make it import `ort-wasm-simd-threaded.mjs`). Glue and binary
    // must come from the same build.
    wasm.wasmPaths = { wasm: new URL(`${ORT_VERSION}/${ORT_WASM_FILE}`, wasmUrl).href };
    // Threads need SharedArrayBuffer, i.e. cross-origin isolation, which a widget cannot demand of its host.
    wasm.numThreads = 1;
  }
  // Model files are kept in the Cache API (transformers.js' browser cache), so only the first visit downloads.
  env.useBrowserCache = typeof caches !== 'undefined';
  const files = new Map<string, { loaded: number; total: number }>();
  return pipeline('feature-extraction', model, {
    dtype: 'q8',
    device: 'wasm',
    progress_callback: (info: { status: string; file?: string; loaded?: number; total?: number }) => {
      if (info.status !== 'progress' || !info.file || !info.total) return;
      files.set(info.file, { loaded: info.loaded ?? 0, total: info.total });
      let loaded = 0;
      let total = 0;
      for (const file of files.values()) {
        loaded += file.loaded;
        total += file.total;
      }
      post({ type: 'progress', loaded, total });
    },
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
