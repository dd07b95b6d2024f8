/**
 * A sync: each source (a sitemap or page URL, a folder or a file) ingested on its own and recorded in
 * `kb_sync_runs` — started, then finished with its counts and the pages that failed — so the console can
 * show per source when it was last synced and what changed. `npm run ingest`, the Node server's schedule and
 * the console's "Sync now" all sync this way. A dry run records nothing.
 */
import type { SyncFinishedData } from '../../protocol/webhooks.ts';
import type { SyncCounts, SyncTrigger } from '../store/types.ts';
import type { Webhooks } from '../webhooks/dispatcher.ts';
import { ingest, type IngestOptions, type IngestSummary } from './pipeline.ts';

export interface SyncOptions extends Omit<IngestOptions, 'inputs'> {
  sources: string[];
  trigger: SyncTrigger;
  /** Called before each source is ingested (e.g. to number progress across sources). */
  onSource?: (source: string, index: number) => void;
  /** Each recorded run ends with a `sync.finished` event here (none for a dry run, which records nothing). */
  webhooks?: Pick<Webhooks, 'emit'>;
}

export interface SourceReport {
  source: string;
  counts: SyncCounts;
  summary: IngestSummary;
}

/**
 * Ingests each source in turn. A source's failed pages are in its report (and its run); an error that
 * stops the whole ingestion (a model that cannot load) is recorded in that source's run and thrown.
 *
 * @example
 * const reports = await sync({ store, model, embedder, sources: ['https://docs.example.com/sitemap.xml'], trigger: 'cli', prune: true });
 */
export async function sync(options: SyncOptions): Promise<SourceReport[]> {
  const { sources, trigger, onSource, webhooks, ...ingestOptions } = options;
  const { store, dryRun = false } = options;
  const reports: SourceReport[] = [];
  for (const [index, source] of sources.entries()) {
    onSource?.(source, index);
    const runId = dryRun ? null : await store.startSyncRun(source, trigger);
    const startedAt = new Date().toISOString();
    const finished = (counts: SyncCounts, failed: SyncFinishedData['failed']) => {
      if (!runId) return;
      const { added, updated, unchanged, removed } = counts;
      webhooks?.emit('sync.finished', {
        source,
        started_at: startedAt,
        finished_at: new Date().toISOString(),
        added,
        updated,
        unchanged,
        removed,
        failed,
      });
    };
    let summary: IngestSummary;
    try {
      summary = await ingest({ ...ingestOptions, inputs: [source] });
    } catch (error) {
      const failed = [{ source, error: errorMessage(error) }];
      if (runId) await store.finishSyncRun(runId, emptyCounts(), failed).catch(() => {});
      finished(emptyCounts(), failed);
      throw error;
    }
    const counts = countsOf(summary);
    if (runId) await store.finishSyncRun(runId, counts, summary.failed);
    finished(counts, summary.failed);
    reports.push({ source, counts, summary });
  }
  return reports;
}

export function countsOf(summary: IngestSummary): SyncCounts {
  return {
    added: summary.added,
    updated: summary.updated,
    unchanged: summary.unchanged,
    removed: summary.dry_run ? 0 : summary.pruned.length,
    failed: summary.failed.length,
    chunks: summary.chunks,
    bytes: summary.bytes,
  };
}

/** The sources' summaries added up (what the CLI printed before runs were per source). */
export function totalOf(reports: SourceReport[], dryRun: boolean): IngestSummary {
  const total: IngestSummary = {
    added: 0,
    updated: 0,
    unchanged: 0,
    failed: [],
    skipped: [],
    pruned: [],
    chunks: 0,
    bytes: 0,
    seconds: 0,
    dry_run: dryRun,
  };
  for (const { summary } of reports) {
    total.added += summary.added;
    total.updated += summary.updated;
    total.unchanged += summary.unchanged;
    total.failed.push(...summary.failed);
    total.skipped.push(...summary.skipped);
    total.pruned.push(...summary.pruned);
    total.chunks += summary.chunks;
    total.bytes += summary.bytes;
    total.seconds += summary.seconds;
  }
  return total;
}

function emptyCounts(): SyncCounts {
  return { added: 0, updated: 0, unchanged: 0, removed: 0, failed: 0, chunks: 0, bytes: 0 };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
