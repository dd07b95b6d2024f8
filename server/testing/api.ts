/**
 * Test support: the real app over a real in-memory PGlite (migrations, RLS, SQL functions), plus the few
 * calls every API test makes. Embeddings are exact unit vectors (see vectors.ts).
 */
import { sign } from 'hono/jwt';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createApp, type AppDeps } from '../app.ts';
import { openPgliteStore, type PgliteStore } from '../store/pglite.ts';
import { migratedTemplate } from './pglite-template.ts';
import type { IngestDocument, IngestStore } from '../store/types.ts';
import { basis } from './vectors.ts';

export const TEST_SECRET = 'test-secret-for-api-tests-0123456789';

/**
 * A console session as the app issues one after a sign-in link: a new anonymous user whose JWT carries
 * `app_metadata.role = 'admin'`, valid for ten minutes, signed with TEST_SECRET.
 */
export async function signInAdmin(
  store: Pick<PgliteStore, 'createAnonymousUser'>,
): Promise<{ token: string; userId: string }> {
  const userId = await store.createAnonymousUser();
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    sub: userId,
    role: 'authenticated',
    aud: 'authenticated',
    app_metadata: { role: 'admin' },
    amr: [{ method: 'link', timestamp: now }],
  };
  return { token: await sign({ ...claims, iat: now, exp: now + 600 }, TEST_SECRET, 'HS256'), userId };
}

export interface TestApi {
  store: PgliteStore;
  app: ReturnType<typeof createApp>;
  /** Another app instance over the same database (another server, another Worker isolate). */
  instance(overrides?: Partial<AppDeps>): ReturnType<typeof createApp>;
  signIn(app?: ReturnType<typeof createApp>): Promise<{ token: string; userId: string }>;
  chat(token: string | null, body: unknown, init?: RequestInit, app?: ReturnType<typeof createApp>): Promise<Response>;
  seedKb(): Promise<void>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function createTestApi(overrides: Partial<AppDeps> = {}): Promise<TestApi> {
  // As the Node server opens it: the console may set the webhook.
  const store = await openPgliteStore(null, { consoleWebhook: true, loadDataDir: await migratedTemplate() });
  const instance = (more: Partial<AppDeps> = {}) =>
    createApp({
      store,
      localAuth: store,
      jwtSecret: TEST_SECRET,
      evidenceThreshold: 0.35,
      embedModel: 'test-model',
      // Vector mode pins the cosine gate (CHAT_EVIDENCE_THRESHOLD) exactly, without its coverage floor (a long
      // question's extra words would lower the coverage); the floor and the fused modes have their own tests.
      retrieval: { mode: 'vector', vectorMinCoverage: 0 },
      streaming: { deltaDelayMs: 0 },
      // Fixed windows reset on the clock; an hour-long window keeps a test from straddling a reset.
      rateLimit: { limit: 20, windowSeconds: 3600 },
      ...overrides,
      ...more,
    });
  const app = instance();
  return {
    store,
    app,
    instance,
    async signIn(target = app) {
      const res = await target.request('/api/auth/anonymous', { method: 'POST' });
      if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
      const body = (await res.json()) as { access_token: string; user_id: string };
      return { token: body.access_token, userId: body.user_id };
    },
    async chat(token, body, init = {}, target = app) {
      return target.request('/api/chat', {
        method: 'POST',
        ...init,
        headers: {
          'Content-Type': 'application/json',
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(init.headers as Record<string, string> | undefined),
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    },
    seedKb: () => seedKb(store),
    async reset() {
      await store.db.exec(
        'delete from chat_sessions; delete from kb_documents; delete from rate_limits; delete from content_gaps;',
      );
    },
    close: () => store.close(),
  };
}

/** Two documents: Billing (refunds on basis(0), invoices on basis(1)) and Internal (basis(2)). */
export const SEED_DOCUMENTS: IngestDocument[] = [
  {
    source: 'billing.md',
    name: 'Billing',
    meta: { url: '/docs/billing' },
    checksum: 'x1',
    model: 'test-model',
    chunks: [
      {
        content: '## Refunds\n\nRefunds are issued within 14 days of a charge. Annual plans are refunded pro rata.',
        meta: {
          section: 'Billing › Refunds',
          heading_path: ['Billing', 'Refunds'],
          anchor: 'refunds',
          url: '/docs/billing#refunds',
          page: 2,
        },
        embedding: basis(0),
      },
      {
        content: 'Invoices are emailed on the first day of each month.',
        meta: { section: 'Billing › Invoices', url: '/docs/billing#invoices', page: 3 },
        embedding: basis(1),
      },
    ],
  },
  {
    source: 'secret.md',
    name: 'Internal',
    meta: {},
    checksum: 'x2',
    model: 'test-model',
    chunks: [{ content: 'The staff discount code is HIDDEN.', meta: {}, embedding: basis(2) }],
  },
];

/** Writes SEED_DOCUMENTS through any ingest store (embedded, or Supabase with the service-role key). */
export async function seedKb(store: IngestStore): Promise<void> {
  for (const doc of SEED_DOCUMENTS) await store.ingestDocument(doc);
}

export const question = (embedding: number[] | undefined, message = 'How do refunds work?', extra: object = {}) => ({
  ...(embedding ? { embedding } : {}),
  message,
  message_id: crypto.randomUUID(),
  ...extra,
});

/**
 * One test API per test file: opened before the tests, closed after, and (with `seed`) reset to the two
 * seeded documents before each test. Read it inside tests: `const api = useTestApi(); … api().chat(…)`.
 */
export function useTestApi(options: { seed?: boolean; overrides?: Partial<AppDeps> } = {}): () => TestApi {
  let api: TestApi | undefined;
  beforeAll(async () => {
    api = await createTestApi(options.overrides);
  });
  afterAll(() => api?.close());
  if (options.seed) {
    beforeEach(async () => {
      await api!.reset();
      await api!.seedKb();
    });
  }
  return () => api!;
}
