/**
 * Decompression-bomb PDFs for tests, written by hand (pdf-lib compresses what it writes itself): one page
 * whose content is a line of text followed by `copies` FlateDecode streams of `megabytes` MB of zeros each.
 * 16 MB of zeros deflate to about 16 KB, so 20 copies are a 330 KB file that inflates to 320 MB. With
 * `disguised`, each zero stream's dictionary says `/Subtype /Image` (PDF.js reads it as content all the same).
 */
import { deflateSync } from 'node:zlib';

export function bombPdf({
  megabytes = 16,
  copies = 20,
  text = 'Nothing to see here',
  disguised = false,
} = {}): Uint8Array {
  const zeros = deflateSync(Buffer.alloc(megabytes * 1024 * 1024), { level: 9 });
  const stream = (dictionary: string, data: Buffer) =>
    Buffer.concat([
      Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`),
      data,
      Buffer.from('\nendstream'),
    ]);
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.alloc(0), // the page, written once the contents' numbers are known
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
    stream('', Buffer.from(`BT /F1 12 Tf 50 700 Td (${text}) Tj ET\n`)),
    ...Array.from({ length: copies }, () =>
      stream(`${disguised ? '/Subtype /Image ' : ''}/Filter /FlateDecode`, zeros),
    ),
  ];
  const contents = objects
    .map((_, i) => i + 1)
    .filter((n) => n >= 5)
    .map((n) => `${n} 0 R`);
  objects[2] = Buffer.from(
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [${contents.join(' ')}] >>`,
  );
  const parts = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let position = parts[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(position);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(object);
    position += object.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(
    Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${position}\n%%EOF\n`),
  );
  return new Uint8Array(Buffer.concat(parts));
}
