/**
 * `GET /api/admin/export/{conversations|gaps|feedback}?format=csv|json&from=&to=`: one kind of record for a
 * date range, streamed. The rows come from the admin_export_* SQL functions one keyset page at a time, and
 * each page is written to the response before the next is read: the server holds one page, never the table,
 * and a slow download slows the reading (the stream pulls the next page only when the client takes more).
 *
 * Mounted inside the admin API (../route.ts), behind its token, admin-claim and rate-limit checks; the SQL
 * functions check the admin claim again. The first page is read before the response starts, so a refusal
 * or a bad argument is still a status code; a failure after that ends the download with an error (a cut
 * transfer, never a file that looks complete).
 */
import { Hono } from 'hono';
import { EXPORT_KINDS, ExportQuerySchema, type ExportFormat, type ExportKind } from '../../../protocol/export.ts';
import type { AuthVariables } from '../../auth/jwt.ts';
import { parseBody } from '../../http/body.ts';
import { AppError } from '../../http/errors.ts';
import type { AdminStore, ExportPageQuery, ExportRow, JwtClaims } from '../../store/types.ts';
import { csvLine, UTF8_BOM } from './csv.ts';
import { SHAPES } from './records.ts';

export interface ExportRouteOptions {
  store: AdminStore;
  /** Maps a store failure to the API's error (the admin route's: `forbidden` is a 403). */
  onStoreError: (error: unknown) => never;
  /** Rows per page read from the database (default 500; the SQL functions allow up to 1000). */
  pageRows?: number;
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

export function exportRoute({ store, onStoreError, pageRows = 500 }: ExportRouteOptions) {
  const app = new Hono<{ Variables: AuthVariables }>();
  const pages: Record<ExportKind, (claims: JwtClaims, page: ExportPageQuery) => Promise<ExportRow[]>> = {
    conversations: (claims, page) => store.adminExportConversations(claims, page),
    gaps: (claims, page) => store.adminExportGaps(claims, page),
    feedback: (claims, page) => store.adminExportFeedback(claims, page),
  };

  app.get('/:kind', async function exportRecords(c) {
    const kind = c.req.param('kind') as ExportKind;
    if (!EXPORT_KINDS.includes(kind))
      throw new AppError(404, 'not_found', `kind: must be one of ${EXPORT_KINDS.join(', ')}.`);
    const { format, from = null, to = null } = parseBody(ExportQuerySchema, c.req.query());
    if (from && to && !(Date.parse(from) < Date.parse(to)))
      throw new AppError(400, 'invalid_request', 'from: must be before to.');
    const claims = c.get('claims');
    const read = (after: string | null) =>
      pages[kind](claims, { from, to, after, limit: pageRows }).catch(onStoreError);
    const first = await read(null);

    const chunks = serialize(kind, format, first, pageRows, read);
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (error) {
          console.error(`[kb-chat] export of ${kind} failed after the download started`, error);
          controller.error(error);
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    });
    const day = new Date().toISOString().slice(0, 10);
    return c.body(body, 200, {
      'Content-Type': CONTENT_TYPES[format],
      'Content-Disposition': `attachment; filename="kb-chat-${kind}-${day}.${format}"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
  });

  return app;
}

/**
 * The file as text chunks, one per page: the CSV header or `[`, each page's rows, then `]`. The next page
 * is read only when the stream asks for more, after the current one was handed on.
 */
async function* serialize(
  kind: ExportKind,
  format: ExportFormat,
  first: ExportRow[],
  pageRows: number,
  read: (after: string | null) => Promise<ExportRow[]>,
): AsyncGenerator<string, void, undefined> {
  const shape = SHAPES[kind];
  yield format === 'csv' ? UTF8_BOM + csvLine(shape.columns) : '[';
  let written = 0;
  for (let page = first; ; ) {
    let out = '';
    for (const row of page) {
      const record = shape.record(row);
      out +=
        format === 'csv' ? csvLine(shape.cells(record)) : `${written === 0 ? '\n' : ',\n'}${JSON.stringify(record)}`;
      written += 1;
    }
    if (out) yield out;
    // A short page is the last one; a full page may be followed by more.
    if (page.length < pageRows) break;
    page = await read(page[page.length - 1]!.cursor);
    if (page.length === 0) break;
  }
  if (format === 'json') yield written === 0 ? ']\n' : '\n]\n';
}
