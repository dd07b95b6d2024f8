/**
 * `npm start`: open (or create) the embedded database — or the PostgreSQL one of DATABASE_URL, shared with
 * other servers — ingest the demo knowledge base on first run, and
 * serve the demo, the widget and the API. When the embedding model cannot be loaded the server still
 * starts, says what to set, and answers the demo by its words (demo-kb.ts).
 */
import { join } from 'node:path';
import { env as transformersEnv } from '@huggingface/transformers';
import { depsFromConfig } from '../../app.ts';
import { readConfig } from '../../config/index.ts';
import { createEmbedder } from '../../ingest/embedder.ts';
import { ensureDemo } from './demo-kb.ts';
import { DEMO_KB_DIR } from './paths.ts';
import { turnstileConfig, turnstileVerifier, type CaptchaOptions } from '../../auth/captcha.ts';
import { MemoryClientLimiter } from '../../http/client-limit.ts';
import { monitorLoopDelay } from '../../http/loop-delay.ts';
import { localAnswerWriteKey } from './answer-key.ts';
import { localJwtSecret } from './jwt-secret.ts';
import { startNodeServer } from './server.ts';
import { nodeSyncRunner, nodeUploader, sharedEmbedder } from './upload.ts';
import { startSyncSchedule, syncScheduleFromEnv } from './sync-schedule.ts';
import { IngestSlot } from '../../console/ingest-slot.ts';
import { LINK_TTL_SECONDS } from '../../console/session.ts';
import { onShutdownSignals, settleWebhooks } from './shutdown.ts';
import { nodeWebhooks } from './webhooks.ts';
import { answerWriteKeyProblem } from '../../store/answer-key.ts';
import { databaseFromEnv, openNodeStore } from '../../store/open.ts';

const config = readConfig(process.env);
const syncConfig = syncScheduleFromEnv(process.env);
/** How long a shutdown waits for webhook deliveries in progress. */
const WEBHOOK_SHUTDOWN_WAIT_MS = 3_000;
const started = performance.now();
// The key this server writes answers with: the database accepts answers from its holder only.
const answerWriteKey = config.answerWriteKey ?? (await localAnswerWriteKey(config.dataDir));
const problem = answerWriteKeyProblem(answerWriteKey);
if (problem) throw new Error(problem);
const database = databaseFromEnv(process.env);
// The console API is the only caller of kb_set_settings here, and it asks for a fresh sign-in for the webhook.
const { store, where } = await openNodeStore(database, config.dataDir, { answerWriteKey, consoleWebhook: true });
const jwtSecret = config.jwtSecret ?? (await localJwtSecret(config.dataDir));
// An ingestion killed during a bulk load leaves the vector index dropped and BM25's statistics uncounted
// (kb_deferred_indexes): rebuild them before serving, so search is as fast and as well ranked as before.
const repaired = (await store.restoreIndexes?.()) ?? 0;
if (repaired > 0) console.log(`Repaired an interrupted ingestion: rebuilt ${repaired} deferred index or statistics.`);

// One embedding model for the process, loaded on first use: the first run's demo ingestion, then the console's
// uploads and "try a question" (loading it twice would hold two copies in memory).
const embedder = sharedEmbedder(() => createEmbedder({ model: config.embedModel, modelDir: config.modelDir }));

await ensureDemo({ store, embedder, model: config.embedModel, dir: DEMO_KB_DIR });
// Webhook deliveries run beside the requests; the shutdown below gives them a moment to finish.
const webhooks = nodeWebhooks(store, config.webhook);
// Console uploads, "Sync now" and the scheduled sync: one ingestion at a time.
// On a shared database (DATABASE_URL) also one across the servers on it: the slot takes a database lock.
const ingestSlot = new IngestSlot(database ? () => store.tryDatabaseLock('ingest') : undefined);
const uploaderOptions = { store, model: config.embedModel, embedder, slot: ingestSlot, sync: syncConfig, webhooks };
const { url, shutdown } = await startNodeServer({
  store,
  localAuth: store,
  ...depsFromConfig(config),
  jwtSecret,
  webhooks,
  webhookDefaults: { url: config.webhook.url, secretSet: config.webhook.secret !== null },
  ...(config.captcha ? { captcha: localCaptcha(config.captcha) } : {}),
  ...(config.signupLimit.limit > 0
    ? { signupLimiter: new MemoryClientLimiter(config.signupLimit.limit, config.signupLimit.windowSeconds) }
    : {}),
  ...(config.refreshLimit.limit > 0
    ? { refreshLimiter: new MemoryClientLimiter(config.refreshLimit.limit, config.refreshLimit.windowSeconds) }
    : {}),
  // PGlite answers one query at a time: two requests in the database phase keep it busy while the other
  // does its JavaScript (token check, extraction); more only interleave and make everyone later. On
  // PostgreSQL, at most as many as the pool has connections. Either way admission is this process's own,
  // to a latency budget measured in this process (its queue, its service times, its event loop's lateness).
  admission: {
    concurrency: database ? database.poolSize : 2,
    budgetMs: config.maxWaitMs,
    loopDelayMs: monitorLoopDelay().delayMs,
  },
  admin: {
    ...(config.adminSignInLimit.limit > 0
      ? { signInLimiter: new MemoryClientLimiter(config.adminSignInLimit.limit, config.adminSignInLimit.windowSeconds) }
      : {}),
    uploader: nodeUploader(uploaderOptions),
    embedQuestion: async (text) => (await (await embedder()).embed([text]))[0]!,
  },
  // Without KB_MODEL_DIR, browsers get the files transformers.js downloaded into its cache for ingestion.
  modelDir: config.modelDir ?? transformersEnv.cacheDir ?? join(process.cwd(), '.cache'),
  port: config.port,
});
// SIGTERM/SIGINT: stop accepting, let open answers finish (KB_SHUTDOWN_GRACE_MS) and store them, then close
// the database cleanly. A second signal exits at once (the database then recovers on the next start).
// Installed before the ready line below, so that whoever waits for that line can stop us with a signal.
const schedule =
  syncConfig.intervalSeconds === null
    ? null
    : startSyncSchedule({
        intervalSeconds: syncConfig.intervalSeconds,
        slot: ingestSlot,
        ranSince: (seconds) => store.scheduledSyncSince(seconds),
        run: () => nodeSyncRunner({ ...uploaderOptions, sync: syncConfig })('schedule'),
      });
onShutdownSignals(async (signal) => {
  schedule?.stop();
  // shutdown() closes the listener before it returns its promise, so the line below is never ahead of it.
  const draining = shutdown(config.shutdownGraceMs);
  console.log(
    `${signal}: stopping — no new requests; letting open answers finish (up to ${config.shutdownGraceMs / 1000} s) …`,
  );
  const drained = await draining;
  await settleWebhooks(webhooks, WEBHOOK_SHUTDOWN_WAIT_MS);
  await store.close();
  console.log(
    `kb-chat stopped in ${drained.seconds.toFixed(1)} s: ${drained.inFlight} requests were open` +
      `${drained.cut ? `; the rest were cut at ${config.shutdownGraceMs / 1000} s (their answers are stored)` : ', all finished'}; database closed.`,
  );
  process.exit(0);
});

const stats = await store.kbStats();
console.log(
  `kb-chat is running at ${url} (${stats.ready_documents} documents, ${stats.chunks} chunks, ` +
    `model ${config.embedModel}, ${where}, ready in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
);
// Where the site owner's console is and how to get in: it has no password on this server, only one-time links.
const origin = url.replace(/\/+$/, '');
console.log(
  `Console for site owners: ${origin}/admin/ — sign in with a one-time link (valid ${LINK_TTL_SECONDS / 60} min) from\n` +
    `  npm run console -- link --url ${origin}   (run with this server's KB_DATA_DIR or KB_JWT_SECRET)`,
);
if (schedule)
  console.log(`Syncing ${syncConfig.sources.join(', ')} every ${syncConfig.intervalSeconds} s (KB_SYNC_INTERVAL).`);

/** The embedded server checks Turnstile tokens itself, so it needs the secret along with the site key. */
function localCaptcha(captcha: NonNullable<typeof config.captcha>): CaptchaOptions {
  if (!captcha.secret)
    throw new Error('KB_CAPTCHA_SITE_KEY is set without KB_CAPTCHA_SECRET: the server cannot check the tokens');
  return {
    config: turnstileConfig(captcha.siteKey, captcha.scriptUrl ?? undefined),
    verify: turnstileVerifier({ secret: captcha.secret, ...(captcha.verifyUrl ? { url: captcha.verifyUrl } : {}) }),
  };
}
