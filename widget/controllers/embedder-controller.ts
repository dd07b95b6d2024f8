/**
 * Owns the embedder Web Worker: creates it on demand (on intent, browser idle or the panel opening, as the
 * `preload` attribute says — never while the page loads), and turns `embed(text)` calls into
 * request/response messages. A question never waits for it: until it is ready the widget asks in keyword
 * mode. So the deadline only stops *waiting* (the status line then says the connection is slow); the
 * download goes on in the background, and the first question after `ready` uses hybrid retrieval.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ApiClient } from '../api/api-client.ts';
import type { EmbedderRequest, EmbedderResponse, ResourceEntry } from '../embedder/messages.ts';
import { scriptURL } from '../trusted-types.ts';

export type EmbedderStatus = 'idle' | 'unsupported' | 'loading' | 'ready' | 'error';

export interface EmbedderControllerOptions {
  api: () => ApiClient;
  /** URL of the worker script (the built `kb-chat-embedder.js`, or the `.ts` source under the test runner). */
  workerUrl: () => string | URL;
  /** After this long loading (config + model + wasm) counts as slow: said in the status line, loading goes on. */
  timeoutMs: () => number;
  /** Overrides the server's `models_url` (the `model-base-url` attribute). */
  modelsUrl?: () => string | null | undefined;
}

interface Pending {
  resolve: (value: never) => void;
  reject: (error: Error) => void;
}

export class EmbedderController implements ReactiveController {
  status: EmbedderStatus = 'idle';
  /** 0–100 while the model downloads (first load only; afterwards it comes from the Cache API). */
  progress?: number;
  /** Technical detail of the last failure, for the console; the UI shows plain words. */
  detail?: string;
  /** Still loading after `timeoutMs`: a slow connection. Nothing is stopped; the status line says so. */
  slow = false;

  private worker?: Worker;
  private timer?: ReturnType<typeof setTimeout>;
  /** Increments on every start/stop so that late messages from a superseded run are ignored. */
  private run = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly options: EmbedderControllerOptions,
  ) {
    host.addController(this);
  }

  hostDisconnected(): void {
    this.stop();
    this.setStatus('idle');
  }

  /** The model will not be available (until a retry): questions go out without an embedding. */
  get failed(): boolean {
    return this.status === 'error' || this.status === 'unsupported';
  }

  /** Begin loading unless already loading or loaded. */
  start(): void {
    if (this.status === 'loading' || this.status === 'ready') return;
    void this.load();
  }

  retry(): void {
    this.stop();
    void this.load();
  }

  /** Embed one question; resolves with a normalised 384-number vector. */
  embed(text: string): Promise<number[]> {
    if (!this.worker || this.status !== 'ready') return Promise.reject(new Error('embedder not ready'));
    const id = this.nextId++;
    return new Promise<number[]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: never) => void, reject });
      this.worker!.postMessage({ type: 'embed', id, text } satisfies EmbedderRequest);
    });
  }

  /** What the worker has fetched (URL, bytes from the network); exists so tests can prove nothing left the API origin. */
  resources(): Promise<ResourceEntry[]> {
    if (!this.worker) return Promise.resolve([]);
    const id = this.nextId++;
    return new Promise<ResourceEntry[]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: never) => void, reject });
      this.worker!.postMessage({ type: 'resources', id } satisfies EmbedderRequest);
    });
  }

  private async load(): Promise<void> {
    const run = ++this.run;
    if (typeof WebAssembly !== 'object') {
      this.setStatus('unsupported');
      return;
    }
    this.detail = undefined;
    this.progress = undefined;
    this.slow = false;
    this.setStatus('loading');
    // Before commit edb7407 the deadline terminated the worker, so a slow connection never got the model (at
    // 10 Mbit/s the 14 MB wasm alone takes 12 s). Now it only changes what the status line says.
    this.timer = setTimeout(() => {
      if (run !== this.run) return;
      this.slow = true;
      this.host.requestUpdate();
    }, this.options.timeoutMs());

    try {
      const api = this.options.api();
      const config = await api.config();
      if (run !== this.run) return;
      const worker = createModuleWorker(this.options.workerUrl(), 'kb-chat-embedder');
      this.worker = worker;
      await new Promise<void>((resolve, reject) => {
        worker.addEventListener('message', (event: MessageEvent<EmbedderResponse>) => {
          const message = event.data;
          if (message.type === 'ready') resolve();
          else if (message.type === 'progress') {
            if (run !== this.run) return;
            this.progress = Math.min(100, Math.round((message.loaded / Math.max(1, message.total)) * 100));
            this.host.requestUpdate();
          } else if (message.type === 'init-error') reject(new Error(message.message));
          else this.settle(message);
        });
        // Fires when the worker script itself fails to load or throws at top level.
        worker.addEventListener('error', (event) => {
          event.preventDefault();
          reject(new Error(event.message || 'the embedder script failed to load'));
        });
        worker.postMessage({
          type: 'init',
          model: config.embed_model,
          modelsUrl: api.url(this.options.modelsUrl?.() || config.models_url),
          wasmUrl: api.url(config.ort_wasm_url),
        } satisfies EmbedderRequest);
      });
      if (run !== this.run) return;
      clearTimeout(this.timer);
      this.slow = false;
      this.setStatus('ready');
    } catch (error) {
      if (run !== this.run) return;
      this.stop();
      this.detail = error instanceof Error ? error.message : String(error);
      console.warn('[kb-chat] the embedder failed to load:', this.detail);
      this.setStatus('error');
    }
  }

  private settle(message: EmbedderResponse): void {
    if (!('id' in message)) return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (message.type === 'embedding') pending.resolve(message.vector as never);
    else if (message.type === 'resources') pending.resolve(message.entries as never);
    else if (message.type === 'embed-error') pending.reject(new Error(message.message));
  }

  private stop(): void {
    this.run++;
    clearTimeout(this.timer);
    this.worker?.terminate();
    this.worker = undefined;
    for (const pending of this.pending.values()) pending.reject(new Error('embedder stopped'));
    this.pending.clear();
  }

  private setStatus(status: EmbedderStatus): void {
    this.status = status;
    this.host.requestUpdate();
  }
}

/**
 * A module Worker for `url`. Browsers only start workers from the page's own origin, but the widget is
 * usually served by the kb-chat API on another origin than the site embedding it: then the worker is a
 * same-origin blob that imports the real script (the API serves it with CORS headers).
 */
export function createModuleWorker(url: string | URL, name: string): Worker {
  const href = new URL(url, location.href);
  if (href.origin === location.origin) return new Worker(scriptURL(href), { type: 'module', name });
  const shim = new Blob([`import ${JSON.stringify(href.href)};`], { type: 'text/javascript' });
  const shimUrl = URL.createObjectURL(shim);
  try {
    return new Worker(scriptURL(shimUrl), { type: 'module', name });
  } finally {
    // The worker has fetched (or is fetching) the shim; the URL itself is no longer needed.
    setTimeout(() => URL.revokeObjectURL(shimUrl), 10_000);
  }
}
