/**
 * The decompressed-size limit of a PDF, checked before PDF.js sees it. PDF.js inflates FlateDecode streams
 * with no bound (deflate reaches about 1000:1, so 61 KB of zeros became 63 MB, and a 5 MB upload could
 * become 5 GB, held in array buffers that a worker's heap limit does not count). Here every stream is
 * inflated by zlib into a counter that keeps nothing, stopping at the limit: text, fonts and other
 * streams together at most `maxTotalBytes`, any single stream at most `maxStreamBytes`. Images have a
 * total of their own, higher (`maxImageTotalBytes`) — extracting text never decodes them, and screenshots
 * in a manual add up to more than its text ever does, but without any total a PDF of many image-labelled
 * streams, each under the per-stream limit, would make this check inflate without end. The whole check has
 * a time budget (`timeoutMs`): inflating is work even when nothing is kept. A stream inside a stream
 * (`/Filter [/FlateDecode /FlateDecode]`) is followed, up to MAX_LAYERS deep.
 *
 * What this does not see — streams of an encrypted PDF, other filters such as LZWDecode — is left to the
 * reader's memory watchdog and time limit (pdf-reader.ts).
 */
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createInflate, inflateSync } from 'node:zlib';

export class PdfLimitError extends Error {
  override name = 'PdfLimitError';
}

export interface InflateLimits {
  /** All non-image streams together, inflated. */
  maxTotalBytes: number;
  /** Any one stream, images included, inflated. */
  maxStreamBytes: number;
  /** All image streams together, inflated (default: 4 × maxTotalBytes). */
  maxImageTotalBytes?: number;
  /** The whole check, in milliseconds (default 20 s). */
  timeoutMs?: number;
}

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');
const MB = 1024 * 1024;
/** Flate inside Flate inside Flate…: deeper than this, the rest is left to the reader's limits. */
const MAX_LAYERS = 4;

/**
 * Throws PdfLimitError when the PDF's streams inflate to more than the limits allow; returns the bytes
 * its non-image streams inflate to otherwise.
 *
 * @example
 * await checkInflatedSize(bytes, { maxTotalBytes: 256 * MB, maxStreamBytes: 256 * MB });
 */
export async function checkInflatedSize(bytes: Uint8Array, limits: InflateLimits): Promise<number> {
  const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { maxImageTotalBytes = 4 * limits.maxTotalBytes, timeoutMs = 20_000 } = limits;
  const deadline = performance.now() + timeoutMs;
  const late = () =>
    performance.now() > deadline
      ? new PdfLimitError(
          `checking its compressed streams took longer than ${timeoutMs / 1000} s (too many or too large streams)`,
        )
      : null;
  let total = 0;
  let images = 0;
  for (let at = pdf.indexOf(STREAM); at >= 0; at = pdf.indexOf(STREAM, at + STREAM.length)) {
    const overTime = late();
    if (overTime) throw overTime;
    if (at >= 3 && pdf.toString('latin1', at - 3, at) === 'end') continue;
    let start = at + STREAM.length;
    if (pdf[start] === 0x0d) start += 1;
    if (pdf[start] !== 0x0a && pdf[start - 1] !== 0x0d) continue; // "stream" inside some other word or string
    if (pdf[start] === 0x0a) start += 1;
    const endAt = pdf.indexOf(END_STREAM, start);
    const end = endAt < 0 ? pdf.length : endAt;
    const image = isImage(pdf.toString('latin1', Math.max(0, at - 2048), at));
    const budget = image ? maxImageTotalBytes - images : limits.maxTotalBytes - total;
    const streamLimit = Math.min(limits.maxStreamBytes, budget);
    const inflated = await inflatedBytes(pdf.subarray(start, end), streamLimit, late);
    if (inflated > streamLimit) {
      throw new PdfLimitError(
        streamLimit === limits.maxStreamBytes
          ? `a stream in it decompresses to more than ${limits.maxStreamBytes / MB} MB (a decompression bomb?)`
          : image
            ? `its images decompress to more than ${maxImageTotalBytes / MB} MB in total (a decompression bomb?)`
            : `it decompresses to more than ${limits.maxTotalBytes / MB} MB of content (a decompression bomb?)`,
      );
    }
    if (image) images += inflated;
    else total += inflated;
    at = end;
  }
  return total;
}

/** Whether the dictionary just before a `stream` keyword says `/Subtype /Image`. */
function isImage(before: string): boolean {
  // From the stream's own `N 0 obj` on (the last "obj" before the keyword; -1 keeps the whole window).
  const dictionary = before.slice(before.lastIndexOf('obj') + 1);
  return /\/Subtype\s*\/Image\b/.test(dictionary);
}

/**
 * What `data` inflates to (zlib format, as FlateDecode is), counted up to `limit` + 1 and then stopped;
 * 0 when it is not zlib data (an image in another format, an encrypted stream). A truncated or damaged
 * stream counts what inflated before the damage — as much as PDF.js would get from it.
 */
async function inflatedBytes(data: Uint8Array, limit: number, late: () => PdfLimitError | null): Promise<number> {
  const layers = zlibLayers(data);
  if (layers === 0) return 0;
  let counted = 0;
  const counter = () =>
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        counted += chunk.length;
        if (counted > limit) done(new PdfLimitError('over the limit'));
        else done(late(), chunk);
      },
    });
  const drain = new Writable({ write: (_chunk, _encoding, done) => done() });
  const stages: NodeJS.ReadWriteStream[] = [];
  // Large output chunks: fewer trips through the counter (16 KB by default).
  for (let i = 0; i < layers; i++) stages.push(createInflate({ chunkSize: 256 * 1024 }), counter());
  try {
    await pipeline([Readable.from([data]), ...stages, drain]);
  } catch (error) {
    if (error instanceof PdfLimitError && error.message !== 'over the limit') throw error; // out of time
    if (error instanceof PdfLimitError) return counted;
    // Damaged data: what came out before the damage is what counts.
  }
  return counted;
}

/** How many zlib layers `data` has, as far as the start of each layer's output shows: 0 when it is not zlib data. */
function zlibLayers(data: Uint8Array): number {
  let layers = 0;
  let head = data;
  while (layers < MAX_LAYERS && isZlibHeader(head)) {
    try {
      // The first bytes only (a partial inflate flushes what it has), to look at the start of the output.
      head = inflateSync(head.subarray(0, 512), { finishFlush: constants.Z_SYNC_FLUSH });
    } catch {
      break;
    }
    layers += 1;
  }
  return layers;
}

function isZlibHeader(data: Uint8Array): boolean {
  return data.length >= 2 && (data[0]! & 0x0f) === 8 && ((data[0]! << 8) | data[1]!) % 31 === 0;
}
