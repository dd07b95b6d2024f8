/**
 * `npm run reindex [-- --dry-run] [--json]`: re-embeds every stored chunk whose embedding was made by
 * another model than KB_EMBED_MODEL (the `kb_embeddings.model` column says which), from the stored chunk
 * text — the sources need not be reachable. One document per database call, so a document never mixes
 * models; an interrupted run simply continues where it stopped.
 */
import { parseArgs } from 'node:util';
import { readConfig } from '../server/config/index.ts';
import { createEmbedder } from '../server/ingest/embedder.ts';
import { openCliStore } from '../server/ingest/open-store.ts';
import { reindex } from '../server/ingest/reindex.ts';

const USAGE = `Usage: npm run reindex [-- --dry-run] [--json]

Re-embeds chunks not embedded with KB_EMBED_MODEL. --dry-run lists the stale documents only.`;

let args;
try {
  args = parseArgs({
    options: { json: { type: 'boolean' }, 'dry-run': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
} catch (error) {
  console.error(`${error instanceof Error ? error.message : error}\n\n${USAGE}`);
  process.exit(1);
}
if (args.values.help) {
  console.log(USAGE);
  process.exit(0);
}
const config = readConfig(process.env);
const log = args.values.json ? process.stderr : process.stdout;
let exitCode = 0;
const cli = await openCliStore(process.env, config.dataDir).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
try {
  const summary = await reindex({
    store: cli.store,
    model: config.embedModel,
    embedder: () => createEmbedder({ model: config.embedModel, modelDir: config.modelDir }),
    dryRun: args.values['dry-run'] === true,
    onDocument: (source, chunks) =>
      log.write(`${args.values['dry-run'] ? 'stale' : 're-embedded'} ${source} (${chunks} chunks)\n`),
  });
  const line = `${args.values['dry-run'] ? 'Would re-embed' : 'Re-embedded'} ${summary.chunks} chunks of ${summary.documents} documents with ${config.embedModel} in ${summary.seconds.toFixed(1)} s`;
  if (args.values.json) {
    log.write(`${line}\n`);
    console.log(JSON.stringify(summary, null, 2));
  } else console.log(line);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  exitCode = 1;
} finally {
  await cli.close();
}
process.exit(exitCode);
