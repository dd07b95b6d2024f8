// One PDF, read in its own worker thread (pdf-reader.ts starts it, with a heap limit and a time limit, and
// terminates it afterwards). Plain JavaScript on purpose: loading TypeScript through tsx costs a worker
// about half a second to start, once per PDF; this file starts in well under a tenth of that.
//
// workerData: { bytes: Uint8Array, maxPages: number, maxBufferBytes: number }
// Posts one message: { pages: {str, y, fontSize, hasEOL}[][], info } or { error } or { limit }.
import { parentPort, workerData } from 'node:worker_threads';
import { extractTextItems, getDocumentProxy, getMeta } from 'unpdf';

const { bytes, maxPages, maxBufferBytes } = workerData;
const port = parentPort;
const MB = 1024 * 1024;

// Inflated streams live in array buffers, which the heap limit (resourceLimits) does not count. PDF.js
// yields to the event loop while it reads pages, so this check gets its turns; over the limit, the parent
// terminates this thread.
const watchdog = setInterval(() => {
  const { arrayBuffers } = process.memoryUsage();
  if (arrayBuffers > maxBufferBytes) {
    clearInterval(watchdog);
    port.postMessage({ limit: `reading it needs more than ${maxBufferBytes / MB} MB of memory` });
  }
}, 20);

/** Only what can be posted and what pdf.ts reads: strings, numbers, dates of the info dictionary. */
function plainInfo(info) {
  const plain = {};
  for (const [key, value] of Object.entries(info ?? {})) {
    if (typeof value === 'string' || typeof value === 'number' || value instanceof Date) plain[key] = value;
  }
  return plain;
}

let pdf;
try {
  pdf = await getDocumentProxy(bytes);
} catch (error) {
  port.postMessage({ error: `not a readable PDF (${error instanceof Error ? error.message : String(error)})` });
}
if (pdf) {
  try {
    if (pdf.numPages > maxPages) {
      port.postMessage({ limit: `it has ${pdf.numPages} pages; at most ${maxPages} are read` });
    } else {
      const [{ items }, { info }] = await Promise.all([extractTextItems(pdf), getMeta(pdf).catch(() => ({ info: {} }))]);
      const pages = items.map((page) => page.map(({ str, y, fontSize, hasEOL }) => ({ str, y, fontSize, hasEOL })));
      port.postMessage({ pages, info: plainInfo(info) });
    }
  } catch (error) {
    port.postMessage({ error: `not a readable PDF (${error instanceof Error ? error.message : String(error)})` });
  } finally {
    clearInterval(watchdog);
    await pdf.destroy().catch(() => {});
  }
}
clearInterval(watchdog);
