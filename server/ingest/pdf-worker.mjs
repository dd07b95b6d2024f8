// The PDF reader's worker thread (pdf-reader.ts starts it with a heap limit, gives it one PDF at a time
// and terminates it on any limit). Plain JavaScript on purpose: loading TypeScript through tsx costs a
// worker about half a second to start; this file starts in well under a tenth of that.
//
// Message in:  { id, bytes: Uint8Array, maxPages, maxBufferBytes }
// Message out: { id, pages: {str, y, fontSize, hasEOL}[][], info } | { id, error } | { id, limit }
import { parentPort } from 'node:worker_threads';
import { extractTextItems, getDocumentProxy, getMeta } from 'unpdf';

const port = parentPort;
const MB = 1024 * 1024;

/** Only what can be posted and what pdf.ts reads: strings, numbers, dates of the info dictionary. */
function plainInfo(info) {
  const plain = {};
  for (const [key, value] of Object.entries(info ?? {})) {
    if (typeof value === 'string' || typeof value === 'number' || value instanceof Date) plain[key] = value;
  }
  return plain;
}

const unreadable = (error) => `not a readable PDF (${error instanceof Error ? error.message : String(error)})`;

async function read({ bytes, maxPages }) {
  let pdf;
  try {
    pdf = await getDocumentProxy(bytes);
  } catch (error) {
    return { error: unreadable(error) };
  }
  try {
    if (pdf.numPages > maxPages) return { limit: `it has ${pdf.numPages} pages; at most ${maxPages} are read` };
    const [{ items }, { info }] = await Promise.all([extractTextItems(pdf), getMeta(pdf).catch(() => ({ info: {} }))]);
    const pages = items.map((page) => page.map(({ str, y, fontSize, hasEOL }) => ({ str, y, fontSize, hasEOL })));
    return { pages, info: plainInfo(info) };
  } catch (error) {
    return { error: unreadable(error) };
  } finally {
    await pdf.destroy().catch(() => {});
  }
}

port.on('message', async (job) => {
  // Inflated streams live in array buffers, which the heap limit (resourceLimits) does not count. PDF.js
  // yields to the event loop while it reads pages, so this check gets its turns; over the limit, the
  // parent terminates this thread.
  let stopped = false;
  const watchdog = setInterval(() => {
    const { arrayBuffers } = process.memoryUsage();
    if (arrayBuffers > job.maxBufferBytes && !stopped) {
      stopped = true;
      port.postMessage({ id: job.id, limit: `reading it needs more than ${job.maxBufferBytes / MB} MB of memory` });
    }
  }, 20);
  try {
    const answer = await read(job);
    if (!stopped) port.postMessage({ id: job.id, ...answer, arrayBuffers: process.memoryUsage().arrayBuffers });
  } finally {
    clearInterval(watchdog);
  }
});
