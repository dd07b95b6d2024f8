/**
 * Reads a PDF's text items and info dictionary out of harm's way. A PDF is a program of sorts: a few
 * kilobytes can decompress to gigabytes, and parsing ran in the ingesting process (the console's server)
 * with no bound. Now each PDF is
 * 1. checked for its decompressed size first (pdf-inflate.ts), then
 * 2. read in a worker thread (pdf-worker.mjs) with a heap limit (resourceLimits), a watchdog on its array
 *    buffers, a page limit and a wall-clock limit; on any limit the worker is terminated.
 * A limit makes that one document fail with the reason; the run goes on with the others.
 *
 * A worker that read a PDF within its limits reads the next one: a new thread loads PDF.js again (a few
 * hundred milliseconds per PDF on this 2-core machine, against about 10 ms for the reading itself). It is
 * retired after MAX_READS PDFs, when it holds more than RETIRE_BUFFER_BYTES of buffers afterwards, and
 * after IDLE_MS without work; idle, it keeps no process alive.
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
  /** All image streams together, inflated, in bytes: higher than the text's, but a total all the same. */
  maxImageBytes: number;
  /** The decompressed-size check before the reader starts (pdf-inflate.ts), in milliseconds. */
  checkTimeoutMs: number;
}

export const PDF_LIMITS: PdfLimits = {
  maxPages: 2000,
  timeoutMs: 60_000,
  maxHeapMb: 256,
  maxBufferBytes: 512 * MB,
  maxInflatedBytes: 256 * MB,
  maxStreamBytes: 256 * MB,
  maxImageBytes: 1024 * MB,
  checkTimeoutMs: 20_000,
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

type WorkerAnswer = { id: number } & (
  | { pages: PdfTextItem[][]; info: Record<string, unknown>; arrayBuffers: number }
  | { error: string; arrayBuffers: number }
  | { limit: string }
);

const MAX_READS = 100;
const RETIRE_BUFFER_BYTES = 64 * MB;
const IDLE_MS = 10_000;

interface ReaderThread {
  worker: Worker;
  heapMb: number;
  reads: number;
  idleTimer?: ReturnType<typeof setTimeout>;
}

const idle: ReaderThread[] = [];
let nextJob = 0;

function takeThread(heapMb: number): ReaderThread {
  const index = idle.findIndex((t) => t.heapMb === heapMb);
  if (index >= 0) {
    const [thread] = idle.splice(index, 1);
    clearTimeout(thread!.idleTimer);
    thread!.worker.ref();
    return thread!;
  }
  const worker = new Worker(new URL('./pdf-worker.mjs', import.meta.url), {
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(32, heapMb) },
    stdout: true, // PDF.js warns on damaged files; the run's own progress is what the owner reads
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  const thread: ReaderThread = { worker, heapMb, reads: 0 };
  // An idle worker has no job listening: its failure only takes it off the idle list.
  worker.on('error', () => {});
  worker.on('exit', () => {
    const at = idle.indexOf(thread);
    if (at >= 0) idle.splice(at, 1);
  });
  return thread;
}

function giveBack(thread: ReaderThread, arrayBuffers: number): void {
  if (thread.reads >= MAX_READS || arrayBuffers > RETIRE_BUFFER_BYTES) {
    void thread.worker.terminate();
    return;
  }
  thread.worker.unref();
  thread.idleTimer = setTimeout(() => void thread.worker.terminate(), IDLE_MS);
  thread.idleTimer.unref();
  idle.push(thread);
}

/**
 * Throws PdfLimitError ("PDF refused: …") when a limit is reached, Error when the PDF cannot be read.
 *
 * @example
 * const { pages, info } = await readPdf(bytes);                    // PDF_LIMITS
 * await readPdf(bytes, { timeoutMs: 5_000 });                      // one limit changed
 */
export async function readPdf(bytes: Uint8Array, limits: Partial<PdfLimits> = {}): Promise<PdfContent> {
  const { maxPages, timeoutMs, maxHeapMb, maxBufferBytes, maxInflatedBytes, maxStreamBytes, maxImageBytes } = {
    ...PDF_LIMITS,
    ...limits,
  };
  try {
    await checkInflatedSize(bytes, {
      maxTotalBytes: maxInflatedBytes,
      maxStreamBytes,
      maxImageTotalBytes: maxImageBytes,
      timeoutMs: { ...PDF_LIMITS, ...limits }.checkTimeoutMs,
    });
  } catch (error) {
    throw error instanceof PdfLimitError ? refused(error.message) : error;
  }
  // The worker gets a copy it owns (PDF.js takes ownership of the buffer it is given).
  const copy = new Uint8Array(bytes);
  const thread = takeThread(maxHeapMb);
  const { worker } = thread;
  thread.reads += 1;
  const id = nextJob++;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onMessage: (answer: WorkerAnswer) => void = () => {};
  let onError: (error: Error & { code?: string }) => void = () => {};
  let onExit: (code: number) => void = () => {};
  let afterwards: number | null = null; // the worker's buffers after a read within the limits: reusable
  try {
    const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
      timer = setTimeout(() => reject(refused(`reading it took longer than ${timeoutMs / 1000} s`)), timeoutMs);
      onMessage = (message) => {
        if (message.id === id) resolve(message);
      };
      onError = (error) => {
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? refused(`reading it needs more than ${maxHeapMb} MB of memory`)
            : error,
        );
      };
      onExit = (code) => reject(new Error(`the PDF reader stopped unexpectedly (exit code ${code})`));
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.postMessage({ id, bytes: copy, maxPages, maxBufferBytes }, [copy.buffer]);
    });
    if ('limit' in answer) throw refused(answer.limit);
    afterwards = answer.arrayBuffers;
    if ('error' in answer) throw new Error(answer.error);
    return { pages: answer.pages, info: answer.info };
  } finally {
    clearTimeout(timer);
    worker.off('message', onMessage);
    worker.off('error', onError);
    worker.off('exit', onExit);
    if (afterwards === null) await worker.terminate();
    else giveBack(thread, afterwards);
  }
}

function refused(reason: string): PdfLimitError {
  return new PdfLimitError(`PDF refused: ${reason}`);
}
