/**
 * `npm run documents -- list | enable <id> | disable <id> | delete <id> [--json]`: manage ingested documents
 * (Supabase with the service-role key when SUPABASE_URL is set, else KB_DATA_DIR). `<id>` is the
 * document's id or its source as listed. Disabled documents stay stored but are never retrieved.
 */
import { parseArgs } from 'node:util';
import { readConfig } from '../server/config/index.ts';
import { openCliStore } from '../server/ingest/open-store.ts';
import type { DocumentInfo, IngestStore } from '../server/store/types.ts';

const USAGE = `Usage: npm run documents -- <command> [--json]

  list              every document: id, status, enabled, chunks, source, title
  enable <id>       make a disabled document retrievable again
  disable <id>      keep the document but never retrieve it
  delete <id>       delete the document with its chunks and embeddings

<id> is the document id or its source (path or URL) as \`list\` shows it.`;

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
} catch (error) {
  console.error(`${error instanceof Error ? error.message : error}\n\n${USAGE}`);
  process.exit(1);
}
const [command, target, ...extra] = args.positionals;
if (args.values.help) {
  console.log(USAGE);
  process.exit(0);
}
const needsId = command === 'enable' || command === 'disable' || command === 'delete';
if (!(command === 'list' || needsId) || (needsId && !target) || extra.length > 0 || (command === 'list' && target)) {
  console.error(USAGE);
  process.exit(1);
}

const config = readConfig(process.env);
let exitCode = 0;
const cli = await openCliStore(process.env, config.dataDir).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
try {
  if (command === 'list') {
    const docs = await cli.store.listDocuments();
    if (args.values.json) console.log(JSON.stringify(docs, null, 2));
    else printTable(docs);
  } else {
    const doc = await find(cli.store, target!);
    if (!doc) {
      console.error(`No document with id or source "${target}" (see npm run documents -- list).`);
      exitCode = 1;
    } else {
      const ok =
        command === 'delete'
          ? await cli.store.deleteDocument(doc.id)
          : await cli.store.setDocumentEnabled(doc.id, command === 'enable');
      const verb = { enable: 'Enabled', disable: 'Disabled', delete: 'Deleted' }[
        command as 'enable' | 'disable' | 'delete'
      ];
      if (args.values.json) console.log(JSON.stringify({ id: doc.id, source: doc.source, [command!]: ok }));
      else console.log(`${verb} ${doc.source} (${doc.id})`);
      if (!ok) exitCode = 1;
    }
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  exitCode = 1;
} finally {
  await cli.close();
}
process.exit(exitCode);

async function find(store: IngestStore, idOrSource: string): Promise<DocumentInfo | undefined> {
  const docs = await store.listDocuments();
  return docs.find((d) => d.id === idOrSource) ?? docs.find((d) => d.source === idOrSource);
}

function printTable(docs: DocumentInfo[]): void {
  if (docs.length === 0) {
    console.log('No documents. Add some with npm run ingest -- <files|dirs|urls…>');
    return;
  }
  for (const d of docs) {
    const state = d.enabled ? d.status : `${d.status}, disabled`;
    console.log(`${d.id}  ${state.padEnd(15)} ${String(d.chunks).padStart(5)} chunks  ${d.source}  — ${d.name}`);
  }
  const disabled = docs.filter((d) => !d.enabled).length;
  console.log(`${docs.length} document${docs.length === 1 ? '' : 's'}${disabled ? `, ${disabled} disabled` : ''}`);
}
