/** The decompressed-size check on raw PDF bytes: what it counts, what it follows, what it leaves alone. */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bombPdf } from '../testing/pdf-bomb.ts';
import { checkInflatedSize, PdfLimitError } from './pdf-inflate.ts';

const MB = 1024 * 1024;
const LIMITS = { maxTotalBytes: 8 * MB, maxStreamBytes: 8 * MB };

/** Just enough of a PDF for the check: objects holding one stream each. */
const pdfWith = (...streams: { dictionary: string; data: Uint8Array }[]) =>
  new Uint8Array(
    Buffer.concat([
      Buffer.from('%PDF-1.4\n'),
      ...streams.map(({ dictionary, data }, i) =>
        Buffer.concat([
          Buffer.from(`${i + 1} 0 obj\n<< ${dictionary} /Length ${data.length} >>\nstream\n`),
          data,
          Buffer.from('\nendstream\nendobj\n'),
        ]),
      ),
      Buffer.from('%%EOF\n'),
    ]),
  );

describe('checkInflatedSize', () => {
  it('counts what the Flate streams inflate to, and nothing for other data', async () => {
    const pdf = pdfWith(
      { dictionary: '/Filter /FlateDecode', data: deflateSync(Buffer.alloc(3 * MB)) },
      { dictionary: '', data: Buffer.from('BT (a stream of text, upstream\n) Tj ET') },
      { dictionary: '/Filter /DCTDecode', data: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]) },
    );
    expect(await checkInflatedSize(pdf, LIMITS)).toBe(3 * MB);
  });

  it('refuses content over the total, however it is split', async () => {
    await expect(checkInflatedSize(bombPdf({ megabytes: 1, copies: 9 }), LIMITS)).rejects.toThrow(
      new PdfLimitError('it decompresses to more than 8 MB of content (a decompression bomb?)'),
    );
  });

  it('leaves images out of the total but holds each to the per-stream limit', async () => {
    expect(await checkInflatedSize(bombPdf({ megabytes: 4, copies: 4, disguised: true }), LIMITS)).toBe(0);
    await expect(checkInflatedSize(bombPdf({ megabytes: 9, copies: 1, disguised: true }), LIMITS)).rejects.toThrow(
      'a stream in it decompresses to more than 8 MB (a decompression bomb?)',
    );
  });

  it('holds images to a total of their own: many image-labelled streams under the per-stream limit add up', async () => {
    // Five 4 MB "images": each under the 8 MB stream limit, 20 MB together over the 16 MB image total.
    await expect(
      checkInflatedSize(bombPdf({ megabytes: 4, copies: 5, disguised: true }), {
        ...LIMITS,
        maxImageTotalBytes: 16 * MB,
      }),
    ).rejects.toThrow(new PdfLimitError('its images decompress to more than 16 MB in total (a decompression bomb?)'));
    // By default the image total is four times the content total.
    await expect(checkInflatedSize(bombPdf({ megabytes: 4, copies: 9, disguised: true }), LIMITS)).rejects.toThrow(
      'its images decompress to more than 32 MB in total',
    );
  });

  it('stops at its time budget with a clear reason', async () => {
    const many = bombPdf({ megabytes: 4, copies: 20, disguised: true });
    const unbounded = { ...LIMITS, maxImageTotalBytes: Number.MAX_SAFE_INTEGER };
    await expect(checkInflatedSize(many, { ...unbounded, timeoutMs: 5 })).rejects.toThrow(
      new PdfLimitError('checking its compressed streams took longer than 0.005 s (too many or too large streams)'),
    );
    expect(await checkInflatedSize(many, unbounded)).toBe(0);
  });

  it('follows Flate streams inside Flate streams', async () => {
    const twice = deflateSync(deflateSync(Buffer.alloc(16 * MB)));
    const thrice = deflateSync(twice);
    expect(thrice.length).toBeLessThan(200);
    await expect(
      checkInflatedSize(pdfWith({ dictionary: '/Filter [/FlateDecode /FlateDecode]', data: twice }), LIMITS),
    ).rejects.toThrow(PdfLimitError);
    await expect(
      checkInflatedSize(
        pdfWith({ dictionary: '/Filter [/FlateDecode /FlateDecode /FlateDecode]', data: thrice }),
        LIMITS,
      ),
    ).rejects.toThrow(PdfLimitError);
  });

  it('counts what a truncated stream gives before it breaks off', async () => {
    const whole = deflateSync(
      Buffer.from('x'.repeat(100_000).replace(/x/g, () => String.fromCharCode(97 + Math.floor(Math.random() * 26)))),
    );
    const counted = await checkInflatedSize(
      pdfWith({ dictionary: '/Filter /FlateDecode', data: whole.subarray(0, whole.length / 2) }),
      LIMITS,
    );
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThan(100_000);
  });
});
