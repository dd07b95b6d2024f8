/**
 * One ingestion at a time on a server: a console upload, a console "Sync now" and a scheduled sync share one
 * slot. Two at once would embed twice as slowly each, hold two models' worth of batches in memory, and could
 * write the same document from two runs; refusing (409) or skipping a scheduled run is simpler and cheap.
 */
export class IngestSlot {
  private holder: string | null = null;

  /**
   * `shared`: a lock held by every server on one database (DATABASE_URL, the store's `tryDatabaseLock`), so
   * the rule holds across servers; without it the slot is this process's (the embedded database has one).
   */
  constructor(private readonly shared?: () => Promise<(() => Promise<void>) | null>) {}

  /** What holds the slot ("an upload", "a scheduled sync"), or null when it is free. */
  get busy(): string | null {
    return this.holder ?? (this.elsewhere ? 'an ingestion on another server' : null);
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

  /**
   * Takes this process's slot, then the database-wide lock when there is one. Null when either is taken:
   * `busy` then says what holds it ("an ingestion on another server" for the database's).
   */
  async acquire(what: string): Promise<(() => void) | null> {
    const release = this.tryAcquire(what);
    if (!release || !this.shared) return release;
    let unlock: (() => Promise<void>) | null;
    try {
      unlock = await this.shared();
    } catch (error) {
      release();
      throw error;
    }
    if (!unlock) {
      release();
      this.elsewhere = true;
      return null;
    }
    this.elsewhere = false;
    return () => {
      release();
      void unlock().catch(() => {});
    };
  }

  /** Set when the last `acquire` found another server's ingestion holding the database's lock. */
  elsewhere = false;
}
