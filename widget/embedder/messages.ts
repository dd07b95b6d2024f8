/** Messages between the widget and its embedder worker (internal to the widget, not part of the wire contract). */

export interface EmbedderInit {
  type: 'init';
  /** transformers.js model id, e.g. `Xenova/all-MiniLM-L6-v2`. */
  model: string;
  /** Absolute URL of the folder holding `<model id>/config.json` etc. */
  modelsUrl: string;
  /** Absolute URL of the folder holding the ONNX Runtime wasm files. */
  wasmUrl: string;
}
export interface EmbedderEmbed {
  type: 'embed';
  id: number;
  text: string;
}
/**
 * Lists every URL the worker has fetched (Resource Timing) with the bytes each took from the network (0: from
 * the HTTP cache), so tests can check that all are same-origin and that a later visit downloads nothing.
 */
export interface EmbedderResources {
  type: 'resources';
  id: number;
}
export type EmbedderRequest = EmbedderInit | EmbedderEmbed | EmbedderResources;

export type EmbedderResponse =
  | { type: 'ready' }
  /** Bytes of the model files downloaded so far (absent when everything comes from the cache). */
  | { type: 'progress'; loaded: number; total: number }
  | { type: 'init-error'; message: string }
  | { type: 'embedding'; id: number; vector: number[] }
  | { type: 'embed-error'; id: number; message: string }
  | { type: 'resources'; id: number; entries: ResourceEntry[] };

export interface ResourceEntry {
  url: string;
  /** Resource Timing's transferSize: bytes over the network, 0 when the HTTP cache answered. */
  transferSize: number;
}
