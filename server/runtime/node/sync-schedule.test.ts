/**
 * The Node server's sync: KB_SYNC_* parsing; the schedule on a short interval against a site on 127.0.0.1
 * (runs recorded, one at a time, skipped while an upload holds the slot); the console's "Sync now" and its
 * per-source view through the admin API; an upload refused while a scheduled sync runs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncOverview, UploadEvent } from '../../../protocol/index.ts';
import { IngestSlot } from '../../console/ingest-slot.ts';
import { createEmbedder } from '../../ingest/embedder.ts';
import { createTestApi, type TestApi, signInAdmin } from '../../testing/api.ts';
import { parseInterval, startSyncSchedule, syncScheduleFromEnv } from './sync-schedule.ts';
import { nodeSyncRunner, nodeUploader, sharedEmbedder } from './upload.ts';

const MODEL = 'test-double/bert-384';
const MODEL_DIR = new URL('../../../test/fixtures/models/', import.meta.url).pathname;
const embedder = sharedEmbedder(() => createEmbedder({ model: MODEL, modelDir: MODEL_DIR }));

describe('KB_SYNC_SOURCES / KB_SYNC_INTERVAL', () => {
  it('reads durations with a unit or in seconds', () => {
    expect([
      parseInterval('6h'),
      parseInterval('30m'),
      parseInterval('90s'),
      parseInterval('1d'),
      parseInterval('3600'),
    ]).toEqual([21600, 1800, 90, 86400, 3600]);
    expect([parseInterval('soon'), parseInterval('-5'), parseInterval('0')]).toEqual([null, null, null]);
  });

  it('needs sources for an interval, and an interval of at least a minute', () => {
    expect(
      syncScheduleFromEnv({ KB_SYNC_SOURCES: ' https://a.example/sitemap.xml, docs ', KB_SYNC_INTERVAL: '6h' }),
    ).toEqual({
      sources: ['https://a.example/sitemap.xml', 'docs'],
      intervalSeconds: 21600,
      allowPrivate: false,
    });
    expect(syncScheduleFromEnv({})).toEqual({ sources: [], intervalSeconds: null, allowPrivate: false });
    expect(() => syncScheduleFromEnv({ KB_SYNC_INTERVAL: '1h' })).toThrow(/KB_SYNC_SOURCES is empty/);
    expect(() => syncScheduleFromEnv({ KB_SYNC_SOURCES: 'docs', KB_SYNC_INTERVAL: '10s' })).toThrow(/at least 60 s/);
    expect(() => syncScheduleFromEnv({ KB_SYNC_SOURCES: 'docs', KB_SYNC_INTERVAL: 'daily' })).toThrow(
      /KB_SYNC_INTERVAL/,
    );
  });
});

describe('syncing on the Node server', () => {
  let server: Server;
  let sitemap: string;
  let api: TestApi;
  let admin: string;
  /** While set, pages answer only when it resolves: a sync that takes as long as the test wants. */
  let gate: Promise<void> | null = null;
  const page = (title: string) =>
    `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${title} explained in one sentence.</p></main></body></html>`;

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/sitemap.xml') {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        return res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(`<urlset><url><loc>${base}/a</loc></url><url><loc>${base}/b</loc></url></urlset>`);
      }
      if (path !== '/a' && path !== '/b') return res.writeHead(404).end();
      await gate;
      const etag = `"${path}-v1"`;
      if (req.headers['if-none-match'] === etag) return res.writeHead(304, { etag }).end();
      res.writeHead(200, { 'content-type': 'text/html', etag }).end(page(path === '/a' ? 'Invoices' : 'Refunds'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    sitemap = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sitemap.xml`;
    api = await createTestApi();
    admin = (await signInAdmin(api.store)).token;
  });

  afterAll(async () => {
    await api?.close();
    await new Promise((resolve) => server.close(resolve).closeAllConnections());
  });

  const syncConfig = () => ({ sources: [sitemap], intervalSeconds: 0.3, allowPrivate: true });
  const runs = async () =>
    (
      await api.store.db.query<{
        trigger: string;
        started_at: Date;
        finished_at: Date | null;
        counts: Record<string, number>;
      }>('select trigger, started_at, finished_at, counts from kb_sync_runs order by started_at')
    ).rows;
  const call = (app: TestApi['app'], method: string, path: string, token = admin, body?: unknown) =>
    app.request(`/api/admin/documents${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  it('runs on its interval, one run at a time, and skips a tick while an upload holds the slot', {
    timeout: 120_000,
  }, async () => {
    const slot = new IngestSlot();
    const lines: string[] = [];
    const run = nodeSyncRunner({ store: api.store, model: MODEL, embedder, sync: syncConfig() });
    const schedule = startSyncSchedule({
      intervalSeconds: 0.3,
      slot,
      run: () => run('schedule'),
      log: (line) => lines.push(line),
    });
    try {
      await expect
        .poll(async () => (await runs()).filter((r) => r.finished_at).length, { timeout: 90_000, interval: 200 })
        .toBeGreaterThanOrEqual(2);
    } finally {
      schedule.stop();
    }
    while (slot.busy) await new Promise((resolve) => setTimeout(resolve, 50));
    const recorded = await runs();
    expect(recorded[0]).toMatchObject({ trigger: 'schedule', counts: { added: 2, failed: 0 } });
    expect(recorded[1]).toMatchObject({ trigger: 'schedule', counts: { unchanged: 2, added: 0, updated: 0 } });
    // Never two at once: each run starts after the one before it finished.
    for (let i = 1; i < recorded.length; i++)
      expect(recorded[i]!.started_at.getTime()).toBeGreaterThanOrEqual(recorded[i - 1]!.finished_at!.getTime());
    expect(lines).toContain(`Synced ${sitemap}: 2 added, 0 updated, 0 unchanged, 0 removed, 0 failed.`);

    // An upload holds the slot: the tick is skipped, nothing is recorded.
    const release = slot.tryAcquire('an upload')!;
    const before = recorded.length;
    expect(await schedule.tick()).toBe('skipped');
    expect(lines.at(-1)).toMatch(/^Scheduled sync skipped: an upload is running/);
    expect(await runs()).toHaveLength(before);
    release();
    expect(await schedule.tick()).toBe('ran');
    expect(await runs()).toHaveLength(before + 1);
  });

  it('refuses a console upload while a scheduled sync runs (409), and the other way round', {
    timeout: 60_000,
  }, async () => {
    const slot = new IngestSlot();
    const uploader = nodeUploader({ store: api.store, model: MODEL, embedder, slot, sync: syncConfig() });
    const app = api.instance({ admin: { uploader } });
    const run = nodeSyncRunner({ store: api.store, model: MODEL, embedder, sync: syncConfig() });
    const schedule = startSyncSchedule({ intervalSeconds: 3600, slot, run: () => run('schedule'), log: () => {} });
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const ticking = schedule.tick();
    await expect.poll(() => slot.busy).toBe('a scheduled sync');
    const refused = await call(app, 'POST', '/url', admin, { url: 'https://example.com/' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'A scheduled sync is running. Please wait for it to finish.',
    );
    const status = (await (await call(app, 'GET', '/sync')).json()) as SyncOverview;
    expect(status.running).toBe('a scheduled sync');
    expect((await call(app, 'POST', '/sync')).status).toBe(409);
    open();
    gate = null;
    expect(await ticking).toBe('ran');
    schedule.stop();
    // Free again: the upload slot takes the scheduled tick's place, and a tick now is skipped.
    const holding = slot.tryAcquire('an upload')!;
    expect(await schedule.tick()).toBe('skipped');
    holding();
  });

  it('"Sync now" streams progress and the Documents view shows per source when it last synced and what changed', {
    timeout: 60_000,
  }, async () => {
    const uploader = nodeUploader({ store: api.store, model: MODEL, embedder, sync: syncConfig() });
    const app = api.instance({ admin: { uploader } });
    const res = await call(app, 'POST', '/sync');
    expect(res.status).toBe(200);
    const events = (await res.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as UploadEvent);
    expect(events.at(-1)).toMatchObject({ type: 'done', added: 0, unchanged: 2, failed: [] });
    const status = (await (await call(app, 'GET', '/sync')).json()) as SyncOverview;
    expect(status).toMatchObject({
      sync_now: true,
      running: null,
      schedule: { sources: [sitemap], intervalSeconds: 0.3 },
    });
    expect(status.sources).toEqual([
      expect.objectContaining({
        source: sitemap,
        trigger: 'console',
        counts: expect.objectContaining({ unchanged: 2, failed: 0 }),
        errors: [],
      }),
    ]);
    expect(status.sources[0]!.last_success_at).toBe(status.sources[0]!.finished_at);

    // A visitor sees nothing; a server without sources says what to set; a Worker (no uploader) too.
    const visitor = (await api.signIn()).token;
    expect((await call(app, 'GET', '/sync', visitor)).status).toBe(403);
    const noSources = api.instance({ admin: { uploader: nodeUploader({ store: api.store, model: MODEL, embedder }) } });
    const unavailable = await call(noSources, 'POST', '/sync');
    expect(unavailable.status).toBe(501);
    expect(((await unavailable.json()) as { error: { message: string } }).error.message).toContain('KB_SYNC_SOURCES');
    const onWorkerNow = await call(api.instance(), 'POST', '/sync');
    expect(onWorkerNow.status).toBe(501);
    expect(((await onWorkerNow.json()) as { error: { message: string } }).error.message).toContain('docs/deploy.md');
    const onWorker = (await (await call(api.instance(), 'GET', '/sync')).json()) as SyncOverview;
    expect(onWorker).toMatchObject({ schedule: null, sync_now: false, running: null });
    expect(onWorker.sources[0]!.source).toBe(sitemap);
  });
});
