/**
 * A pool worker (pool.ts): loads its own copy of the model once, then prepares documents (parse, chunk,
 * embed) one message at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createEmbedder, type EmbedderOptions } from './embedder.ts';
import { prepareDocument, type PrepareTask } from './prepare.ts';

const port = parentPort!;
try {
  const embedder = await createEmbedder(workerData as EmbedderOptions);
  port.on('message', async ({ id, task }: { id: number; task: PrepareTask }) => {
    try {
      port.postMessage({ id, result: await prepareDocument(task, embedder) });
    } catch (error) {
      port.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
  port.postMessage({ ready: true });
} catch (error) {
  port.postMessage({ loadError: error instanceof Error ? error.message : String(error) });
}
