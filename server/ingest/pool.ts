/**
 * Where documents are prepared (parsed, chunked, embedded): in this thread with one embedder, or in a pool
 * of worker threads sized to the cores, each with its own model and one ONNX thread. The main thread then
 * only reads, fetches and writes to the database, which overlaps with the workers' inference.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { EmbedderLoadError, type Embedder, type EmbedderOptions } from './embedder.ts';
import { prepareDocument, type PreparedDocument, type PrepareTask } from './prepare.ts';

export interface Preparer {
  /** How many documents it usefully works on at once. */
  readonly parallelism: number;
  prepare(task: PrepareTask): Promise<PreparedDocument>;
  close(): Promise<void>;
}

/** Prepares in this thread; `getEmbedder` is called on first use (the model loads only when needed). */
export function inProcessPreparer(getEmbedder: () => Promise<Embedder>): Preparer {
  return {
    parallelism: 2, // one document embedding while the next is parsed and the previous written
    prepare: async (task) => prepareDocument(task, await getEmbedder()),
    close: async () => {},
  };
}

interface Pending {
  resolve: (value: PreparedDocument) => void;
  reject: (error: Error) => void;
}

/**
 * Starts `size` workers (default: the number of cores) and waits until each has loaded the model.
 * Rejects with EmbedderLoadError when the model cannot be loaded.
 *
 * @example
 * const pool = await createWorkerPool({ model, modelDir });
 * const prepared = await pool.prepare({ bytes, format: 'markdown', defaults, origin: {} });
 * await pool.close();
 */
export async function createWorkerPool(options: EmbedderOptions & { size?: number }): Promise<Preparer> {
  const { size = Math.max(1, availableParallelism()), ...embedderOptions } = options;
  const url = new URL('./prepare-worker.mjs', import.meta.url);
  const workers = Array.from(
    { length: size },
    () => new Worker(url, { workerData: { threads: 1, ...embedderOptions } }),
  );
  const idle: Worker[] = [];
  const queue: { task: PrepareTask; pending: Pending }[] = [];
  const inFlight = new Map<Worker, Pending>();
  let closed = false;

  const dispatch = (): void => {
    while (idle.length > 0 && queue.length > 0) {
      const worker = idle.pop()!;
      const { task, pending } = queue.shift()!;
      inFlight.set(worker, pending);
      worker.postMessage({ id: 0, task });
    }
  };

  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            worker.once('error', reject);
            worker.once('message', (message: { ready?: true; loadError?: string }) => {
              if (message.loadError) reject(new EmbedderLoadError(message.loadError));
              else resolve();
            });
          }),
      ),
    );
  } catch (error) {
    await Promise.all(workers.map((w) => w.terminate()));
    // Every document would fail the same way: stop the run (the pipeline rethrows EmbedderLoadError).
    if (error instanceof EmbedderLoadError) throw error;
    throw new EmbedderLoadError(
      `could not start the embedding workers: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }

  for (const worker of workers) {
    worker.on('message', (message: { result?: PreparedDocument; error?: string }) => {
      const pending = inFlight.get(worker);
      inFlight.delete(worker);
      idle.push(worker);
      if (message.error !== undefined) pending?.reject(new Error(message.error));
      else pending?.resolve(message.result!);
      dispatch();
    });
    worker.on('error', (error) => {
      inFlight.get(worker)?.reject(error);
      inFlight.delete(worker);
    });
    idle.push(worker);
  }

  return {
    parallelism: size,
    prepare(task) {
      if (closed) return Promise.reject(new Error('the worker pool is closed'));
      return new Promise<PreparedDocument>((resolve, reject) => {
        queue.push({ task, pending: { resolve, reject } });
        dispatch();
      });
    },
    async close() {
      closed = true;
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
