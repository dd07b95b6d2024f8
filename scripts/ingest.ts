/**
 * `npm run ingest -- <files|dirs…> [--base-url <url>] [--json]`: index Markdown and text files into the
 * knowledge base (KB_DATA_DIR), embedding with KB_EMBED_MODEL (from KB_MODEL_DIR when set).
 * Exit code 1 when a file failed, the model could not be loaded, or no paths were given.
 */
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { readConfig } from '../server/config/index.ts';
import { createEmbedder } from '../server/ingest/embedder.ts';
import { SUPPORTED_EXTENSIONS } from '../server/ingest/files.ts';
import { ingest, type IngestProgress, type IngestSummary } from '../server/ingest/pipeline.ts';
import { openPgliteStore } from '../server/store/pglite.ts';

const USAGE = `Usage: npm run ingest -- <files|dirs…> [--base-url <url>] [--json]

Indexes ${Object.keys(SUPPORTED_EXTENSIONS).join(', ')} files (folders are walked recursively) into KB_DATA_DIR.
Unchanged files are skipped; changed files are replaced atomically.

  --base-url <url>  citation link for documents without a \`url\` in their front matter:
                    <url>/<path relative to the given folder, without extension>
  --json            print the summary as JSON on stdout (progress goes to stderr)

Environment: KB_EMBED_MODEL, KB_MODEL_DIR, KB_DATA_DIR (see README).`;

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: { 'base-url': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
} catch (error) {
  console.error(`${error instanceof Error ? error.message : error}\n\n${USAGE}`);
  process.exit(1);
}
if (args.values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (args.positionals.length === 0) {
  console.error(USAGE);
  process.exit(1);
}

const json = args.values.json === true;
const config = readConfig(process.env);
const store = await openPgliteStore(config.dataDir);
const progress = createProgress(json ? process.stderr : process.stdout);
let exitCode = 0;
try {
  const summary = await ingest({
    store,
    model: config.embedModel,
    embedder: () => createEmbedder({ model: config.embedModel, modelDir: config.modelDir }),
    inputs: args.positionals,
    baseUrl: args.values['base-url'] ?? null,
    onProgress: progress.update,
  });
  progress.stop();
  report(summary);
  if (summary.failed.length > 0) exitCode = 1;
} catch (error) {
  progress.stop();
  console.error(error instanceof Error ? error.message : String(error));
  exitCode = 1;
} finally {
  await store.close();
}
process.exit(exitCode);

function report(summary: IngestSummary): void {
  const documents = summary.added + summary.updated + summary.unchanged + summary.failed.length;
  for (const failure of summary.failed) console.error(`✗ ${failure.source}: ${failure.error}`);
  if (summary.skipped.length > 0) {
    console.error(`Skipped ${summary.skipped.length} file(s) with unsupported extensions: ${summary.skipped.join(', ')}`);
  }
  const line =
    `Ingested ${documents} document${documents === 1 ? '' : 's'} (${summary.added} added, ${summary.updated} updated, ` +
    `${summary.unchanged} unchanged, ${summary.failed.length} failed), ${summary.chunks} chunk${summary.chunks === 1 ? '' : 's'} in ` +
    `${summary.seconds.toFixed(1)} s`;
  if (json) {
    console.error(line);
    console.log(JSON.stringify(summary, null, 2));
  } else {
    console.log(line);
  }
}

/** A progress bar on a terminal, one plain line per document otherwise (CI logs, pipes). */
function createProgress(stream: NodeJS.WriteStream): { update: (event: IngestProgress) => void; stop: () => void } {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { stream, format: '{bar} {value}/{total} {status}', hideCursor: true, clearOnComplete: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(event) {
        if (event.type === 'start') {
          bar.start(event.total, 0, { status: '' });
          started = true;
        } else if (event.type === 'loading-model') bar.update({ status: `loading ${config.embedModel} …` });
        else bar.update(event.done, { status: `${event.outcome} ${event.source}` });
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  return {
    update(event) {
      if (event.type === 'loading-model') stream.write(`Loading embedding model ${config.embedModel} …\n`);
      if (event.type !== 'document') return;
      const detail = event.error ? `: ${event.error}` : event.chunks > 0 ? ` (${event.chunks} chunks)` : '';
      stream.write(`[${event.done}/${event.total}] ${event.outcome} ${event.source}${detail}\n`);
    },
    stop: () => {},
  };
}
