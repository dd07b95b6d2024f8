/**
 * How both Web Workers (the embedder and, in generative mode, the generator) set up transformers.js: model
 * files and the ONNX Runtime wasm from the API's origin only — no model hub, no CDN, which transformers.js
 * defaults to — kept in the Cache API, and download progress summed over the model's files.
 */
import { env } from '@huggingface/transformers';

/**
 * The binary matching the ONNX Runtime build bundled into the workers: the CPU-only `onnxruntime-web/wasm`
 * (esbuild.config.mjs aliases transformers.js' WebGPU import to it; 14 MB instead of 27 MB).
 */
export const ORT_WASM_FILE = 'ort-wasm-simd-threaded.wasm';

/**
 * The version of that ONNX Runtime build, compiled in by esbuild.config.mjs. The wasm is fetched from
 * `<ort_wasm_url><version>/`: a versioned URL, so servers can let browsers cache it for a year.
 */
declare const __ORT_VERSION__: string;
export const ORT_VERSION = __ORT_VERSION__;

export interface ModelLocation {
  /** Absolute URL of the folder holding `<model id>/config.json` etc. */
  modelsUrl: string;
  /** Absolute URL of the folder holding the ONNX Runtime wasm files. */
  wasmUrl: string;
}

/** Points transformers.js at our model folder and wasm (global settings: one worker, one model folder). */
export function useModelsFrom({ modelsUrl, wasmUrl }: ModelLocation, origin: string): void {
  const models = new URL(modelsUrl);
  if (models.origin === origin) {
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
}

/** A `progress_callback` that reports the bytes of all the model's files together. */
export function downloadProgress(report: (loaded: number, total: number) => void) {
  const files = new Map<string, { loaded: number; total: number }>();
  return (info: { status: string; file?: string; loaded?: number; total?: number }) => {
    if (info.status !== 'progress' || !info.file || !info.total) return;
    files.set(info.file, { loaded: info.loaded ?? 0, total: info.total });
    let loaded = 0;
    let total = 0;
    for (const file of files.values()) {
      loaded += file.loaded;
      total += file.total;
    }
    report(loaded, total);
  };
}
