/**
 * One ingestion at a time on a server: a console upload, a console "Sync now" and a scheduled sync share one
 * slot. Two at once would embed twice as slowly each, hold two models' worth of batches in memory, and could
 * write the same document from two runs; refusing (409) or skipping a scheduled run is simpler and cheap.
 */
export class IngestSlot {
  private holder: string | null = null;

  /** What holds the slot ("an upload", "a scheduled sync"), or null when it is free. */
  get busy(): string | null {
    return this.holder;
  }

  /** Takes the slot for `what`; returns its release, or null when something else holds it. */
  tryAcquire(what: string): (() => void) | null {
    if (this.holder !== null) return null;
    this.holder = what;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holder = null;
    };
  }
}
