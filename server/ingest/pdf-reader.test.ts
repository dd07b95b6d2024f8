/**
 * PDFs are read in a worker thread within limits: decompressed size (checked before reading), memory,
 * pages and time. Each limit fails the PDF with a reason a site owner can act on.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { Worker } from 'node:worker_threads';
import { describe, expect, it, vi } from 'vitest';
import { bombPdf } from '../testing/pdf-bomb.ts';
import { PDF_LIMITS, PdfLimitError, readPdf } from './pdf-reader.ts';

const MB = 1024 * 1024;
/** The size check off, to reach the limits behind it. */
const UNCHECKED = {
  maxInflatedBytes: Number.MAX_SAFE_INTEGER,
  maxStreamBytes: Number.MAX_SAFE_INTEGER,
  maxImageBytes: Number.MAX_SAFE_INTEGER,
};

async function textPdf(pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i++)
    pdf.addPage().drawText(`Page ${i} of the handbook.`, { x: 50, y: 700, size: 12, font });
  return pdf.save();
}

describe('readPdf', () => {
  it('reads text items and the info dictionary', async () => {
    const { pages, info } = await readPdf(await textPdf(2));
    expect(pages.map((items) => items.map((i) => i.str).join(''))).toEqual([
      'Page 1 of the handbook.',
      'Page 2 of the handbook.',
    ]);
    expect(pages[0]![0]).toMatchObject({ y: 700, fontSize: 12 });
    expect(info).toMatchObject({ Producer: expect.any(String) });
  });

  it('refuses a decompression bomb (330 KB → 320 MB) before reading it', async () => {
    const error = await readPdf(bombPdf()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfLimitError);
    expect((error as Error).message).toBe(
      `PDF refused: it decompresses to more than ${PDF_LIMITS.maxInflatedBytes / MB} MB of content (a decompression bomb?)`,
    );
  });

  it('refuses one stream over the per-stream limit, even one that says it is an image', async () => {
    const error = await readPdf(bombPdf({ megabytes: 16, copies: 1, disguised: true }), {
      maxStreamBytes: 8 * MB,
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'PDF refused: a stream in it decompresses to more than 8 MB (a decompression bomb?)',
    );
  });

  it('refuses streams labelled as images past their own total, and a size check past its time budget', async () => {
    const images = await readPdf(bombPdf({ megabytes: 4, copies: 5, disguised: true }), {
      maxImageBytes: 16 * MB,
    }).catch((e: unknown) => e);
    expect(images).toBeInstanceOf(PdfLimitError);
    expect((images as Error).message).toBe(
      'PDF refused: its images decompress to more than 16 MB in total (a decompression bomb?)',
    );
    const slow = await readPdf(bombPdf({ megabytes: 16, copies: 8, disguised: true }), { checkTimeoutMs: 5 }).catch(
      (e: unknown) => e,
    );
    expect((slow as Error).message).toBe(
      'PDF refused: checking its compressed streams took longer than 0.005 s (too many or too large streams)',
    );
  });

  it('stops the reader when its buffers pass the memory limit (a bomb the size check lets through)', async () => {
    // Eight 16 MB streams that say they are images: under the per-stream limit, and images are left out of
    // the total — but they are the page's content, so PDF.js inflates them.
    const error = await readPdf(bombPdf({ megabytes: 16, copies: 8, disguised: true }), {
      maxBufferBytes: 48 * MB,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfLimitError);
    expect((error as Error).message).toBe('PDF refused: reading it needs more than 48 MB of memory');
  });

  it('stops the reader at its heap limit', async () => {
    const error = await readPdf(await textPdf(1), { maxHeapMb: 4 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfLimitError);
    expect((error as Error).message).toBe('PDF refused: reading it needs more than 4 MB of memory');
  });

  it('stops the reader at the time limit, and terminates it', async () => {
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    // 256 MB to inflate: about 5 s of reading on an idle 2-core machine, stopped at 0.3 s.
    const error = await readPdf(bombPdf({ megabytes: 16, copies: 16 }), { ...UNCHECKED, timeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PdfLimitError);
    expect((error as Error).message).toBe('PDF refused: reading it took longer than 0.3 s');
    expect(terminate).toHaveBeenCalledTimes(1);
    terminate.mockRestore();
  });

  it('refuses a PDF over the page limit', async () => {
    await expect(readPdf(await textPdf(3), { maxPages: 2 })).rejects.toThrow(
      'PDF refused: it has 3 pages; at most 2 are read',
    );
  });

  it('reads the next PDF in the same worker, but never in one that hit a limit', async () => {
    const post = vi.spyOn(Worker.prototype, 'postMessage');
    const pdf = await textPdf(1);
    await readPdf(pdf);
    await readPdf(pdf);
    await expect(readPdf(await textPdf(3), { maxPages: 2 })).rejects.toThrow(PdfLimitError);
    await readPdf(pdf);
    const [first, second, limited, after] = post.mock.contexts;
    post.mockRestore();
    expect(second).toBe(first);
    expect(limited).toBe(first);
    expect(after).not.toBe(limited);
  });

  it('says a damaged file is not a readable PDF', async () => {
    await expect(readPdf(new TextEncoder().encode('%PDF-1.4\nnothing else'))).rejects.toThrow(/^not a readable PDF/);
  });
});
