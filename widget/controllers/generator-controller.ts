/**
 * Owns the generator Web Worker of generative mode: created only when the server's answer mode is
 * `generative` and the panel opens — never in extractive mode, so no generation file is fetched there — and
 * turning `write()` calls into streamed generations. It decides nothing about what is shown: the caller
 * validates the text (generator/output.ts) and keeps the extractive answer on any failure.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ClientConfig } from '../../protocol/api.ts';
import type { ApiClient } from '../api/api-client.ts';
import type { GeneratorPassage, GeneratorRequest, GeneratorResponse } from '../generator/messages.ts';
import { createModuleWorker } from './embedder-controller.ts';

export type GeneratorStatus = 'off' | 'loading' | 'ready' | 'error';

export interface GeneratorControllerOptions {
  api: () => ApiClient;
  /** URL of the worker script (the built `kb-chat-generator.<hash>.js`). */
  workerUrl: () => string | URL;
  /** Overrides the server's `models_url` (the `model-base-url` attribute). */
  modelsUrl?: () => string | null | undefined;
  /** The longest a written answer may take, first token included, before the extractive one stays. */
  timeoutMs: () => number;
}

export interface Written {
  text: string;
  /** The passages the model was shown: the only `[n]` its text may cite. */
  cited: number[];
  stopped: 'eos' | 'length' | 'cancelled';
  tokens: number;
  firstTokenMs: number;
  tokensPerSecond: number;
}

interface Pending {
  onToken: (text: string) => void;
  resolve: (written: Written) => void;
  reject: (error: Error) => void;
}

export class GeneratorController implements ReactiveController {
  status: GeneratorStatus = 'off';
  /** 0–100 while the model downloads (first load only). */
  progress?: number;
  /** The model id being loaded or loaded: what a stored written answer is flagged with. */
  model?: string;
  detail?: string;

  private worker?: Worker;
  private ready?: Promise<void>;
  private run = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly options: GeneratorControllerOptions,
  ) {
    host.addController(this);
  }

  hostDisconnected(): void {
    this.stop();
    this.setStatus('off');
  }

  /** Load the model when the server's mode is generative; nothing at all otherwise. */
  start(config: ClientConfig): void {
    if (config.answer_mode !== 'generative' || !config.generation_model) return;
    if (this.status === 'loading' || this.status === 'ready') return;
    this.ready = this.load(config, config.generation_model);
    this.ready.catch(() => {}); // reported through `status`; write() rethrows to its caller
  }

  /**
   * Write an answer from `passages`, streaming text deltas to `onToken`. Waits for a model still loading
   * (within the same deadline), rejects when there is none or the deadline passes (the generation is then
   * cancelled), or when `signal` aborts.
   */
  async write(
    question: string,
    passages: GeneratorPassage[],
    onToken: (text: string) => void,
    signal?: AbortSignal,
  ): Promise<Written> {
    if (!this.ready) throw new Error('generative mode is off');
    const deadline = this.options.timeoutMs();
    const started = performance.now();
    await withTimeout(this.ready, deadline, 'the writing model took too long to load');
    const worker = this.worker;
    if (!worker || this.status !== 'ready') throw new Error('the writing model is not available');
    const id = this.nextId++;
    const done = new Promise<Written>((resolve, reject) => this.pending.set(id, { onToken, resolve, reject }));
    worker.postMessage({ type: 'generate', id, question, passages } satisfies GeneratorRequest);
    const cancel = () => worker.postMessage({ type: 'cancel', id } satisfies GeneratorRequest);
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      return await withTimeout(
        done,
        Math.max(1, deadline - (performance.now() - started)),
        'the written answer took too long',
      );
    } catch (error) {
      cancel();
      this.pending.delete(id);
      throw error;
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  }

  private async load(config: ClientConfig, model: string): Promise<void> {
    const run = ++this.run;
    this.model = model;
    this.detail = undefined;
    this.progress = undefined;
    this.setStatus('loading');
    const api = this.options.api();
    try {
      const worker = createModuleWorker(this.options.workerUrl(), 'kb-chat-generator');
      this.worker = worker;
      await new Promise<void>((resolve, reject) => {
        worker.addEventListener('message', (event: MessageEvent<GeneratorResponse>) => {
          if (run !== this.run) return;
          const message = event.data;
          switch (message.type) {
            case 'ready':
              return resolve();
            case 'init-error':
              return reject(new Error(message.message));
            case 'progress':
              this.progress = Math.min(100, Math.round((message.loaded / Math.max(1, message.total)) * 100));
              return this.host.requestUpdate();
            case 'token':
              return this.pending.get(message.id)?.onToken(message.text);
            case 'done': {
              const pending = this.pending.get(message.id);
              this.pending.delete(message.id);
              const { text, cited, stopped, tokens, firstTokenMs, tokensPerSecond } = message;
              return pending?.resolve({ text, cited, stopped, tokens, firstTokenMs, tokensPerSecond });
            }
            case 'generate-error': {
              const pending = this.pending.get(message.id);
              this.pending.delete(message.id);
              return pending?.reject(new Error(message.message));
            }
          }
        });
        worker.addEventListener('error', (event) => {
          event.preventDefault();
          reject(new Error(event.message || 'the generator script failed to load'));
        });
        worker.postMessage({
          type: 'init',
          model,
          modelsUrl: api.url(this.options.modelsUrl?.() || config.models_url),
          wasmUrl: api.url(config.ort_wasm_url),
        } satisfies GeneratorRequest);
      });
      if (run !== this.run) return;
      this.setStatus('ready');
    } catch (error) {
      if (run !== this.run) return;
      this.stop();
      this.detail = error instanceof Error ? error.message : String(error);
      console.warn('[kb-chat] the writing model failed to load; answers stay quoted:', this.detail);
      this.setStatus('error');
      throw error;
    }
  }

  private stop(): void {
    this.run++;
    this.worker?.terminate();
    this.worker = undefined;
    this.ready = undefined;
    for (const pending of this.pending.values()) pending.reject(new Error('generator stopped'));
    this.pending.clear();
  }

  private setStatus(status: GeneratorStatus): void {
    this.status = status;
    this.host.requestUpdate();
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
