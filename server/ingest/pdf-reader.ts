/**
 * Reads a PDF's text items and info dictionary out of harm's way. A PDF is a program of sorts: a few
 * kilobytes can decompress to gigabytes, and parsing ran in the ingesting process (the console's server)
 * with no bound. Now each PDF is
 * 1. checked for its decompressed size first (pdf-inflate.ts), then
 * 2. read in its own worker thread (pdf-worker.mjs) with a heap limit (resourceLimits), a watchdog on its
 *    array buffers, a page limit and a wall-clock limit; on any limit the worker is terminated.
 * A limit makes that one document fail with the reason; the run goes on with the others.
 */
import { Worker } from 'node:worker_threads';
import { checkInflatedSize, PdfLimitError } from './pdf-inflate.ts';

export { PdfLimitError };

const MB = 1024 * 1024;

export interface PdfLimits {
  /** Pages read at most; a longer PDF fails. */
  maxPages: number;
  /** Wall-clock time to read one PDF, in milliseconds. */
  timeoutMs: number;
  /** The reader's JavaScript heap (old generation), in MB: `resourceLimits.maxOldGenerationSizeMb`. */
  maxHeapMb: number;
  /** The reader's array buffers (inflated streams live there), in bytes: checked every 20 ms. */
  maxBufferBytes: number;
  /** Text, fonts and other non-image streams together, inflated, in bytes. */
  maxInflatedBytes: number;
  /** Any one stream, images included, inflated, in bytes. */
  maxStreamBytes: number;
}

export const PDF_LIMITS: PdfLimits = {
  maxPages: 2000,
  timeoutMs: 60_000,
  maxHeapMb: 256,
  maxBufferBytes: 512 * MB,
  maxInflatedBytes: 256 * MB,
  maxStreamBytes: 256 * MB,
};

export interface PdfTextItem {
  str: string;
  y: number;
  fontSize: number;
  hasEOL: boolean;
}

export interface PdfContent {
  /** Text items per page, in page order. */
  pages: PdfTextItem[][];
  /** The info dictionary's string, number and date entries (Title, Subject, Keywords, CreationDate…). */
  info: Record<string, unknown>;
}

type WorkerAnswer = { pages: PdfTextItem[][]; info: Record<string, unknown> } | { error: string } | { limit: string };

/**
 * Throws PdfLimitError ("PDF refused: …") when a limit is reached, Error when the PDF cannot be read.
 *
 * @example
 * const { pages, info } = await readPdf(bytes);                    // PDF_LIMITS
 * await readPdf(bytes, { timeoutMs: 5_000 });                      // one limit changed
 */
export async function readPdf(bytes: Uint8Array, limits: Partial<PdfLimits> = {}): Promise<PdfContent> {
  const { maxPages, timeoutMs, maxHeapMb, maxBufferBytes, maxInflatedBytes, maxStreamBytes } = { ...PDF_LIMITS, ...limits };
  try {
    await checkInflatedSize(bytes, { maxTotalBytes: maxInflatedBytes, maxStreamBytes });
  } catch (error) {
    throw error instanceof PdfLimitError ? refused(error.message) : error;
  }
  // The worker gets a copy it owns (PDF.js takes ownership of the buffer it is given).
  const copy = new Uint8Array(bytes);
  const worker = new Worker(new URL('./pdf-worker.mjs', import.meta.url), {
    workerData: { bytes: copy, maxPages, maxBufferBytes },
    transferList: [copy.buffer],
    resourceLimits: { maxOldGenerationSizeMb: maxHeapMb, maxYoungGenerationSizeMb: Math.min(32, maxHeapMb) },
    stdout: true, // PDF.js warns on damaged files; the run's own progress is what the owner reads
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      timer = setTimeout(() => reject(refused(`reading it took longer than ${timeoutMs / 1000} s`)), timeoutMs);
      worker.once('message', resolve);
      worker.once('error', (error: Error & { code?: string }) => {
        reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? refused(`reading it needs more than ${maxHeapMb} MB of memory`) : error);
      });
      worker.once('exit', (code) => reject(new Error(`the PDF reader stopped unexpectedly (exit code ${code})`)));
    });
    if ('limit' in answer) throw refused(answer.limit);
    if ('error' in answer) throw new Error(answer.error);
    return answer;
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}

function refused(reason: string): PdfLimitError {
  return new PdfLimitError(`PDF refused: ${reason}`);
}
