/**
 * The Node server's own re-sync: every KB_SYNC_INTERVAL it syncs KB_SYNC_SOURCES (sitemap or page URLs,
 * folders, files) through the same pipeline as `npm run ingest`, recording each source's run in
 * kb_sync_runs. One run at a time: a run takes the server's ingestion slot (shared with console uploads and
 * "Sync now"), and a tick that finds it taken is skipped, not queued — the next tick comes soon enough, and
 * a queue of runs behind a long upload would only do the same work twice. A page that fails keeps its
 * stored version (the pipeline writes a document only when it was read and parsed).
 */
import type { IngestSlot } from '../../console/ingest-slot.ts';
import type { UploadDone } from '../../console/upload.ts';
import type { SourceReport } from '../../ingest/sync.ts';

export interface SyncScheduleConfig {
  sources: string[];
  /** null: no schedule ("Sync now" only). */
  intervalSeconds: number | null;
  /** KB_SYNC_ALLOW_PRIVATE: the sources are on the server's own network (the operator's choice, not an admin's). */
  allowPrivate: boolean;
}

/**
 * KB_SYNC_SOURCES (comma-separated) and KB_SYNC_INTERVAL (`6h`, `30m`, `90s`, `1d`, or seconds; at least 60
 * unless KB_SYNC_MIN_INTERVAL allows less, for tests). Throws with the variable's name on a bad value.
 */
export function syncScheduleFromEnv(env: Record<string, string | undefined>): SyncScheduleConfig {
  const sources = (env.KB_SYNC_SOURCES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const raw = env.KB_SYNC_INTERVAL?.trim();
  let intervalSeconds: number | null = null;
  if (raw) {
    intervalSeconds = parseInterval(raw);
    const min = Number(env.KB_SYNC_MIN_INTERVAL ?? 60);
    if (intervalSeconds === null || intervalSeconds < min) {
      throw new Error(
        `KB_SYNC_INTERVAL must be a duration like 6h, 30m or 3600 (seconds), at least ${min} s; got "${raw}"`,
      );
    }
    if (sources.length === 0) throw new Error('KB_SYNC_INTERVAL is set but KB_SYNC_SOURCES is empty: nothing to sync.');
  }
  return { sources, intervalSeconds, allowPrivate: /^(1|true|yes)$/i.test(env.KB_SYNC_ALLOW_PRIVATE ?? '') };
}

/** `6h` → 21600, `30m` → 1800, `45s` → 45, `1d` → 86400, `3600` → 3600; null when unreadable. */
export function parseInterval(raw: string): number | null {
  const match = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)?$/i.exec(raw.trim());
  if (!match) return null;
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[(match[2] ?? 's').toLowerCase() as 's' | 'm' | 'h' | 'd'];
  const seconds = Number(match[1]) * unit;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

export interface SyncScheduleOptions {
  intervalSeconds: number;
  slot: IngestSlot;
  /** Runs one sync of every source (trigger 'schedule'). */
  run: () => Promise<SourceReport[]>;
  /**
   * Whether a scheduled sync already started within the last `seconds`, on any server sharing the database
   * (the store's `scheduledSyncSince`): N servers with the same KB_SYNC_INTERVAL then sync once per interval,
   * not N times. Asked while the slot (and its database lock) is held, so two servers cannot both say no.
   */
  ranSince?: (seconds: number) => Promise<boolean>;
  log?: (line: string) => void;
}

export interface SyncSchedule {
  /** Resolves when the tick's run (if any) is over: 'ran', or 'skipped' when the slot was taken. */
  tick(): Promise<'ran' | 'skipped' | 'failed'>;
  stop(): void;
}

/** Starts the timer (unref'd: it never keeps the process alive); the first run is one interval after start. */
export function startSyncSchedule({
  intervalSeconds,
  slot,
  run,
  ranSince,
  log = console.log,
}: SyncScheduleOptions): SyncSchedule {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const tick = async (): Promise<'ran' | 'skipped' | 'failed'> => {
    let release: (() => void) | null;
    try {
      release = await slot.acquire('a scheduled sync');
    } catch (error) {
      log(`Scheduled sync failed: ${error instanceof Error ? error.message : String(error)}`);
      return 'failed';
    }
    if (!release) {
      log(`Scheduled sync skipped: ${slot.busy} is running; the next try is in ${intervalSeconds} s.`);
      return 'skipped';
    }
    try {
      // Half an interval: timers on two servers drift apart, yet the next interval's run must not be taken
      // for this one's.
      if (ranSince && (await ranSince(intervalSeconds / 2))) {
        log('Scheduled sync skipped: another server on this database ran it.');
        return 'skipped';
      }
      const reports = await run();
      for (const { source, counts: c } of reports) {
        log(
          `Synced ${source}: ${c.added} added, ${c.updated} updated, ${c.unchanged} unchanged, ${c.removed} removed, ${c.failed} failed.`,
        );
      }
      return 'ran';
    } catch (error) {
      log(`Scheduled sync failed: ${error instanceof Error ? error.message : String(error)}`);
      return 'failed';
    } finally {
      release();
    }
  };
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => void tick().finally(next), intervalSeconds * 1000);
    timer.unref();
  };
  next();
  return {
    tick,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/** A sync's reports as the console's upload stream ends: one `done` event, the counts added up. */
export function doneOf(reports: SourceReport[]): UploadDone {
  const done: UploadDone = {
    type: 'done',
    added: 0,
    updated: 0,
    unchanged: 0,
    failed: [],
    skipped: [],
    chunks: 0,
    seconds: 0,
  };
  for (const { summary } of reports) {
    done.added += summary.added;
    done.updated += summary.updated;
    done.unchanged += summary.unchanged;
    done.failed.push(...summary.failed);
    done.skipped.push(...summary.skipped);
    done.chunks += summary.chunks;
    done.seconds += summary.seconds;
  }
  return done;
}
