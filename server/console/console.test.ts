// Long file: every console endpoint's tests share one test API (PGlite with the migrations, an admin token, the uploader) started once.
/**
 * The console's API on Node with a real PGlite database: every endpoint's auth (401 without a
 * token, 403 for a visitor — and for a forged role claim the SQL functions refuse too) and validation (400
 * naming the field), then what each one does.
 */
import { existsSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign } from 'hono/jwt';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AdminConversation,
  AdminDocument,
  AdminGap,
  AdminMe,
  Overview,
  Page,
  TryResult,
  UploadEvent,
} from '../../protocol/index.ts';
import { publicAddressesOnly } from '../ingest/address-policy.ts';
import { createEmbedder } from '../ingest/embedder.ts';
import { nodeUploader, sharedEmbedder } from '../runtime/node/upload.ts';
import { createTestApi, question, TEST_SECRET, type TestApi } from '../testing/api.ts';
import { codeFrontMatter } from '../testing/front-matter-attack.ts';
import { basis } from '../testing/vectors.ts';
import { createLinkToken } from './session.ts';

const MODEL_DIR = new URL('../../test/fixtures/models/', import.meta.url).pathname;
const embedder = sharedEmbedder(() => createEmbedder({ model: 'test-double/bert-384', modelDir: MODEL_DIR }));

let api: TestApi;
let admin: string;
let visitor: string;
beforeAll(async () => {
  const created = await createTestApi({ generationModel: 'test-double/lm' });
  // The uploader writes with the server's own connection (the store), as on the Node server.
  const app = created.instance({
    admin: { uploader: nodeUploader({ store: created.store, model: 'test-double/bert-384', embedder }) },
  });
  api = { ...created, app };
  await api.seedKb();
  admin = await tokenFor({ role: 'admin' });
  visitor = (await api.signIn()).token;
});
afterAll(() => api?.close());

async function tokenFor(appMetadata: Record<string, unknown>): Promise<string> {
  const userId = await api.store.createAnonymousUser();
  const now = Math.floor(Date.now() / 1000);
  return sign(
    { sub: userId, role: 'authenticated', aud: 'authenticated', app_metadata: appMetadata, iat: now, exp: now + 600 },
    TEST_SECRET,
    'HS256',
  );
}

const call = (method: string, path: string, token: string | null, body?: unknown) =>
  api.app.request(`/api/admin${path}`, {
    method,
    headers: {
      ...(body instanceof FormData ? {} : { 'Content-Type': 'application/json' }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) }),
  });
const json = async <T>(res: Response | Promise<Response>): Promise<T> => (await (await res).json()) as T;
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

const ENDPOINTS: [string, string, unknown?][] = [
  ['GET', '/me'],
  ['GET', '/gaps?status=open'],
  ['PUT', '/gaps', { question_key: 'x', done: true }],
  ['GET', '/conversations'],
  ['GET', `/conversations/${crypto.randomUUID()}`],
  ['GET', '/documents'],
  ['PUT', `/documents/${crypto.randomUUID()}`, { enabled: false }],
  ['DELETE', `/documents/${crypto.randomUUID()}`],
  ['GET', '/overview'],
  ['POST', '/try', { message: 'How do refunds work?' }],
  ['POST', '/documents/url', { url: 'https://example.com/' }],
  ['GET', '/documents/sync'],
  ['POST', '/documents/sync'],
  ['GET', '/settings'],
];

describe('auth on every admin endpoint', () => {
  it.each(ENDPOINTS)(
    '%s %s: 401 without a token, 403 for a visitor and for another role',
    async (method, path, body) => {
      expect((await call(method, path, null, body)).status).toBe(401);
      const refused = await call(method, path, visitor, body);
      expect(refused.status).toBe(403);
      expect((await errorOf(refused)).code).toBe('forbidden');
      expect((await call(method, path, await tokenFor({ role: 'editor' }), body)).status).toBe(403);
    },
  );

  it('the SQL functions refuse a non-admin themselves (whatever API calls them)', async () => {
    const claims = { sub: crypto.randomUUID(), role: 'authenticated' };
    await expect(api.store.adminListGaps(claims, { status: 'all', limit: 10, offset: 0 })).rejects.toMatchObject({
      kind: 'forbidden',
    });
    await expect(
      api.store.adminListConversations(claims, { rating: 'any', outcome: 'any', limit: 10, offset: 0 }),
    ).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(api.store.adminOverview(claims, '2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z')).rejects.toMatchObject(
      { kind: 'forbidden' },
    );
    await expect(api.store.adminDeleteDocument(claims, crypto.randomUUID())).rejects.toMatchObject({
      kind: 'forbidden',
    });
  });
});

describe('rate limit', () => {
  it('counts each admin’s requests in its own bucket: 429 with Retry-After past the limit, the chat budget untouched', async () => {
    const limited = api.instance({ admin: { rateLimit: { limit: 3, windowSeconds: 3600 } } });
    const token = await tokenFor({ role: 'admin' });
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await limited.request('/api/admin/me', { headers: { Authorization: `Bearer ${token}` } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const over = await limited.request('/api/admin/gaps?status=open', {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(over.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect((await api.chat(token, question(basis(0), 'How do refunds work?'))).status).toBe(200);
  });
});

describe('validation: a 400 naming the field', () => {
  it.each([
    ['GET', '/gaps?status=closed', undefined, /^status: /],
    ['GET', '/gaps?status=open&limit=0', undefined, /^limit: /],
    ['GET', '/gaps?status=open&limit=5000', undefined, /^limit: /],
    ['GET', '/gaps?status=open&offset=-1', undefined, /^offset: /],
    ['PUT', '/gaps', { question_key: '', done: true }, /^question_key: /],
    ['PUT', '/gaps', { question_key: 'x', done: 'yes' }, /^done: /],
    ['GET', '/conversations?rating=meh', undefined, /^rating: /],
    ['GET', '/conversations?outcome=maybe', undefined, /^outcome: /],
    ['GET', '/conversations?from=yesterday', undefined, /^from: /],
    ['GET', `/documents?q=${'x'.repeat(201)}`, undefined, /^q: /],
    ['PUT', '/documents/not-a-uuid', { enabled: true }, /^id: /],
    ['PUT', `/documents/${crypto.randomUUID()}`, { enabled: 'no' }, /^enabled: /],
    ['DELETE', '/documents/1', undefined, /^id: /],
    ['GET', '/overview?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', undefined, /^from: /],
    ['GET', '/overview?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', undefined, /^from: /],
    ['POST', '/try', { message: '   ' }, /^message: /],
    ['POST', '/try', { message: 'x', embedding: [1, 2] }, /^embedding: /],
    ['POST', '/try', { message: 'x', mode: 'psychic' }, /^mode: /],
    ['POST', '/documents/url', { url: 'file:///etc/passwd' }, /^url: /],
    ['POST', '/session', { link_token: '' }, /^link_token: /],
  ] as const)('%s %s', async (method, path, body, message) => {
    const res = await call(method, path, admin, body);
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(message);
  });
});

describe('sign-in by one-time link', () => {
  it('exchanges a link once for an admin session; a second use, a forged or an expired link get 401', async () => {
    const link = await createLinkToken(TEST_SECRET);
    const first = await call('POST', '/session', null, { link_token: link });
    expect(first.status).toBe(200);
    const { access_token } = await json<{ access_token: string }>(first);
    const me = await json<AdminMe>(call('GET', '/me', access_token));
    expect(me).toMatchObject({
      role: 'admin',
      capabilities: { upload: true, link_sign_in: true, password_sign_in: false },
    });
    expect((await call('POST', '/session', null, { link_token: link })).status).toBe(401);
    // A second link signs in as the same local admin.
    const again = await json<{ access_token: string }>(
      call('POST', '/session', null, { link_token: await createLinkToken(TEST_SECRET) }),
    );
    expect((await json<AdminMe>(call('GET', '/me', again.access_token))).user_id).toBe(me.user_id);
    expect(
      (
        await call('POST', '/session', null, {
          link_token: await createLinkToken('another-secret-another-secret-0123'),
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await call('POST', '/session', null, {
          link_token: await createLinkToken(TEST_SECRET, Math.floor(Date.now() / 1000) - 3600),
        })
      ).status,
    ).toBe(401);
    // An access token is not a link, and a link is not an access token.
    expect((await call('POST', '/session', null, { link_token: visitor })).status).toBe(401);
    expect((await call('GET', '/me', await createLinkToken(TEST_SECRET))).status).toBe(401);
    expect((await call('POST', '/password', null, { email: 'a@b.co', password: 'x' })).status).toBe(404);
  });
});

describe('what the endpoints do', () => {
  it('gaps: grouped and counted; mark done hides one until it is asked again', async () => {
    const v = await api.signIn();
    for (const m of ['Do you ship to Mars?', 'do you SHIP   to mars?', 'Is there a student discount?'])
      await api.chat(v.token, question(basis(300), m));
    const open = await json<Page<AdminGap>>(call('GET', '/gaps?status=open&limit=10', admin));
    expect(open.total).toBe(2);
    expect(open.items.map((g) => [g.question_key, g.asked])).toEqual([
      ['do you ship to mars?', 2],
      ['is there a student discount?', 1],
    ]);
    expect((await call('PUT', '/gaps', admin, { question_key: 'do you ship to mars?', done: true })).status).toBe(200);
    expect(
      (await json<Page<AdminGap>>(call('GET', '/gaps?status=open', admin))).items.map((g) => g.question_key),
    ).toEqual(['is there a student discount?']);
    expect((await json<Page<AdminGap>>(call('GET', '/gaps?status=done', admin))).items[0]!.done_at).not.toBeNull();
    expect((await call('PUT', '/gaps', admin, { question_key: 'never asked', done: true })).status).toBe(404);
    await api.chat(v.token, question(basis(300), 'Do you ship to Mars?'));
    expect((await json<Page<AdminGap>>(call('GET', '/gaps?status=open', admin))).items[0]).toMatchObject({
      question_key: 'do you ship to mars?',
      asked: 3,
    });
    // Paginated: one per page, the total stays.
    const page2 = await json<Page<AdminGap>>(call('GET', '/gaps?status=all&limit=1&offset=1', admin));
    expect([page2.items.length, page2.total, page2.offset]).toEqual([1, 2, 1]);
  });

  it('conversations: answers and refusals with rating and comment, filtered; visitors as opaque ids', async () => {
    const v = await api.signIn();
    const answered = await api.chat(v.token, question(basis(0), 'How do refunds work?'), {
      headers: { Accept: 'application/json' },
    });
    const { answer_message_id } = (await answered.json()) as { answer_message_id: string };
    await api.chat(v.token, question(basis(300), 'Can I pay in seashells?'));
    await api.store.db.query(
      'insert into chat_feedback (message_id, user_id, rating, comment) values ($1, $2, -1, $3)',
      [answer_message_id, v.userId, 'Wrong: I meant annual plans'],
    );

    const all = await json<Page<AdminConversation>>(call('GET', '/conversations?limit=50', admin));
    const mine = all.items.filter(
      (c) =>
        ['How do refunds work?', 'Can I pay in seashells?'].includes(c.question) &&
        c.visitor === all.items.find((x) => x.message_id === answer_message_id)!.visitor,
    );
    expect(mine.map((c) => [c.question, c.kind, c.rating])).toEqual([
      ['Can I pay in seashells?', 'refusal', null],
      ['How do refunds work?', 'answer', -1],
    ]);
    const answer = mine[1]!;
    expect(answer).toMatchObject({
      comment: 'Wrong: I meant annual plans',
      confidence: expect.any(String),
      mode: 'vector',
      generated: null,
    });
    expect(mine[0]!.generated).toBeNull();
    // Generative mode: the visitor's written version shows beside the quoted answer, flagged with its model.
    await api.store.db.query(`update kb_settings set answer_mode = 'generative'`);
    const save = await api.app.request(`/api/chat/${answer_message_id}/generated`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${v.token}` },
      body: JSON.stringify({ text: 'Refunds come within 14 days [1].', model: 'test-double/lm' }),
    });
    await api.store.db.query('update kb_settings set answer_mode = null');
    expect(save.status).toBe(200);
    const withWritten = await json<Page<AdminConversation>>(call('GET', '/conversations?rating=down', admin));
    expect(withWritten.items[0]!.generated).toEqual({
      text: 'Refunds come within 14 days [1].',
      model: 'test-double/lm',
    });
    expect(answer.citations[0]).toMatchObject({ title: 'Billing' });
    expect(answer.visitor).toMatch(/^v-[0-9a-f]{10}$/);
    expect(JSON.stringify(all)).not.toContain(v.userId);

    const down = await json<Page<AdminConversation>>(call('GET', '/conversations?rating=down', admin));
    expect(down.items.map((c) => c.message_id)).toEqual([answer_message_id]);
    const refused = await json<Page<AdminConversation>>(call('GET', '/conversations?outcome=refused', admin));
    expect(refused.items.every((c) => c.kind === 'refusal')).toBe(true);
    const future = await json<Page<AdminConversation>>(
      call('GET', `/conversations?from=${new Date(Date.now() + 86_400_000).toISOString()}`, admin),
    );
    expect(future.total).toBe(0);
  });

  it('overview: per day and in total, computed in SQL', async () => {
    const o = await json<Overview>(call('GET', '/overview', admin));
    expect(o.days).toHaveLength(31);
    expect(o.questions).toBe(o.answered + o.refused);
    expect(o.questions).toBeGreaterThanOrEqual(2);
    expect(o.down).toBeGreaterThanOrEqual(1);
    expect(o.days.at(-1)!.questions).toBe(o.questions);
    expect(o.median_evidence).toBeGreaterThan(0.35);
    expect(o.median_confidence).toMatch(/high|medium|low/);
  });

  it('documents: list with search, disable (never retrieved), enable, delete', async () => {
    const list = await json<Page<AdminDocument>>(call('GET', '/documents?q=bill', admin));
    expect(list.items.map((d) => [d.title, d.chunks, d.enabled, d.embedding_model])).toEqual([
      ['Billing', 2, true, 'test-model'],
    ]);
    const id = list.items[0]!.id;
    expect((await call('PUT', `/documents/${id}`, admin, { enabled: false })).status).toBe(200);
    const tried = await json<TryResult>(
      call('POST', '/try', admin, { message: 'How do refunds work?', embedding: basis(0) }),
    );
    expect(tried.decision).toBe('refuse');
    expect((await call('PUT', `/documents/${id}`, admin, { enabled: true })).status).toBe(200);
    expect((await call('PUT', `/documents/${crypto.randomUUID()}`, admin, { enabled: true })).status).toBe(404);
    const internal = (await json<Page<AdminDocument>>(call('GET', '/documents?q=internal', admin))).items[0]!;
    expect((await call('DELETE', `/documents/${internal.id}`, admin)).status).toBe(200);
    expect((await call('DELETE', `/documents/${internal.id}`, admin)).status).toBe(404);
    expect((await json<Page<AdminDocument>>(call('GET', '/documents?q=%_', admin))).total).toBe(0); // literal, not a pattern
  });

  it('try a question: candidates with their signals, the decision and the answer a visitor gets; nothing stored', async () => {
    const count = async () =>
      (
        await api.store.db.query<{ n: number }>(
          'select (select count(*) from chat_messages)::int + (select count(*) from content_gaps)::int as n',
        )
      ).rows[0]!.n;
    const before = await count();
    const yes = await json<TryResult>(
      call('POST', '/try', admin, { message: 'How do refunds work?', embedding: basis(0) }),
    );
    expect(yes).toMatchObject({ decision: 'answer', mode: 'vector', embedded: true, threshold: 0.35 });
    expect(yes.answer!.text).toContain('Refunds are issued within 14 days');
    const top = yes.candidates.find((c) => c.cited)!;
    expect(top).toMatchObject({ title: 'Billing', vector_rank: 1 });
    expect(top.evidence).toBeCloseTo(1, 5);
    const no = await json<TryResult>(
      call('POST', '/try', admin, { message: 'Do you ship to Mars?', embedding: basis(300) }),
    );
    expect(no).toMatchObject({ decision: 'refuse', answer: null, refusal: { reason: 'no_evidence' } });
    expect(no.evidence).toBeLessThan(no.threshold);
    const keywords = await json<TryResult>(call('POST', '/try', admin, { message: 'refunds issued days' }));
    expect(keywords).toMatchObject({ mode: 'lexical', embedded: false });
    expect(keywords.candidates[0]!.bm25).toBeGreaterThan(0);
    expect(await count()).toBe(before);
  });
});

describe('uploads (Node: the ingestion pipeline)', () => {
  const upload = (name: string, content: BlobPart, token = admin) => {
    const form = new FormData();
    form.set('file', new File([content], name));
    return call('POST', '/documents/upload', token, form);
  };
  const events = async (res: Response) =>
    (await res.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as UploadEvent);

  it('ingests a Markdown file with progress; it is then listed and retrievable', async () => {
    const res = await upload(
      'shipping.md',
      '# Shipping\n\nWe ship to every planet of the solar system, Mars included, within 30 days.\n',
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toContain('application/x-ndjson');
    const progress = await events(res);
    expect(progress[0]).toEqual({ type: 'start', total: 1 });
    expect(progress).toContainEqual(
      expect.objectContaining({ type: 'document', source: 'uploads/shipping.md', outcome: 'added', done: 1, total: 1 }),
    );
    expect(progress.at(-1)).toMatchObject({ type: 'done', added: 1, failed: [] });
    const [doc] = (await json<Page<AdminDocument>>(call('GET', '/documents?q=shipping', admin))).items;
    expect(doc).toMatchObject({
      source: 'uploads/shipping.md',
      title: 'Shipping',
      status: 'ready',
      embedding_model: 'test-double/bert-384',
      source_type: 'markdown',
    });
    const tried = await json<TryResult>(
      call('POST', '/try', admin, { message: 'Do you ship to Mars?', mode: 'lexical' }),
    );
    expect(tried.candidates[0]!.title).toBe('Shipping');
  });

  it('refuses what it cannot ingest before anything runs, and writes nothing', async () => {
    const before = (await json<Page<AdminDocument>>(call('GET', '/documents', admin))).total;
    const cases: [string, BlobPart, number, RegExp][] = [
      ['tool.exe', 'MZ', 400, /^file: must be one of/],
      ['fake.pdf', 'not a pdf', 400, /^file: is not a PDF/],
      ['latin1.txt', new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 400, /^file: must be UTF-8/],
      ['empty.md', '', 400, /^file: is empty/],
      ['big.md', 'x'.repeat(5 * 1024 * 1024 + 1), 413, /^file: must be at most 5 MB/],
    ];
    for (const [name, content, status, message] of cases) {
      const res = await upload(name, content);
      expect(res.status, name).toBe(status);
      expect((await errorOf(res)).message, name).toMatch(message);
    }
    expect((await upload('a.md', '# A', visitor)).status).toBe(403);
    const tooBig = await upload('huge.md', 'x'.repeat(6 * 1024 * 1024));
    expect(tooBig.status).toBe(413);
    expect((await json<Page<AdminDocument>>(call('GET', '/documents', admin))).total).toBe(before);
  });

  it('ingests a PDF, page by page', async () => {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    pdf.setTitle('Warranty terms');
    pdf.addPage().drawText('Every kb-chat lamp carries a warranty of five years.', { x: 50, y: 700, size: 12, font });
    const res = await upload('warranty.pdf', new Uint8Array(await pdf.save()) as Uint8Array<ArrayBuffer>);
    expect((await events(res)).at(-1)).toMatchObject({ type: 'done', added: 1 });
    const [doc] = (await json<Page<AdminDocument>>(call('GET', '/documents?q=warranty', admin))).items;
    expect(doc).toMatchObject({ source: 'uploads/warranty.pdf', source_type: 'pdf', status: 'ready' });
  });

  it.each(['js', 'javascript'])(
    'refuses ---%s front matter without running it; the next upload is stored',
    async (language) => {
      const marker = join(tmpdir(), `kb-upload-${language}-${process.pid}-${Date.now()}.ran`);
      const res = await upload(`evil-${language}.md`, codeFrontMatter(language, marker));
      expect(res.status).toBe(200);
      const progress = await events(res);
      expect(existsSync(marker)).toBe(false);
      expect(progress.at(-1)).toMatchObject({
        type: 'done',
        added: 0,
        failed: [
          {
            source: `uploads/evil-${language}.md`,
            error: `front matter in '${language}' is refused: only YAML front matter is read`,
          },
        ],
      });
      expect(
        (await api.store.db.query('select 1 from kb_documents where source = $1', [`uploads/evil-${language}.md`]))
          .rows,
      ).toEqual([]);
      const next = await upload(`after-${language}.md`, '# Returns\n\nReturns are accepted within 60 days.\n');
      expect((await events(next)).at(-1)).toMatchObject({ type: 'done', added: 1, failed: [] });
    },
  );

  it('two uploads at once: one runs, the other gets 409 and nothing of it is written; the slot is free again after', async () => {
    // The first upload's body arrives slowly (a client on a slow line): the second arrives while it is read.
    const boundary = 'kb-race-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="race-slow.md"\r\nContent-Type: text/markdown\r\n\r\n`;
    const tail = `# Slow\n\nA page that took its time to arrive.\n\r\n--${boundary}--\r\n`;
    let reading!: () => void;
    const bodyRead = new Promise<void>((resolve) => (reading = resolve));
    let finish!: () => void;
    const rest = new Promise<void>((resolve) => (finish = resolve));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          sent += 1;
          if (sent === 1) return controller.enqueue(new TextEncoder().encode(head));
          reading();
          await rest;
          controller.enqueue(new TextEncoder().encode(tail));
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const slow = api.app.request('/api/admin/documents/upload', {
      method: 'POST',
      // With its length announced the body limit lets it through unread, so the handler reads it.
      headers: {
        Authorization: `Bearer ${admin}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(new TextEncoder().encode(head + tail).length),
      },
      body,
      duplex: 'half',
    } as RequestInit);
    await bodyRead;
    const second = await upload('race-fast.md', '# Fast\n\nA page sent while another upload was still arriving.\n');
    finish();
    const first = await slow;

    expect(second.status).toBe(409);
    expect(await errorOf(second)).toEqual({
      code: 'conflict',
      message: 'Another upload is running. Please wait for it to finish.',
    });
    expect(first.status).toBe(200);
    expect((await events(first)).at(-1)).toMatchObject({ type: 'done', added: 1, failed: [] });
    const stored = async (name: string) =>
      (await api.store.db.query('select 1 from kb_documents where source = $1', [`uploads/${name}`])).rows.length;
    expect(await stored('race-slow.md')).toBe(1);
    expect(await stored('race-fast.md')).toBe(0);
    const again = await upload('race-fast.md', '# Fast\n\nA page sent while another upload was still arriving.\n');
    expect((await events(again)).at(-1)).toMatchObject({ type: 'done', added: 1 });
  });

  it('leaves nothing half-written when the pipeline fails on a document', async () => {
    const real = await embedder();
    const failing = Object.assign(Object.create(real) as typeof real, {
      embed: async () => {
        throw new Error('the model crashed');
      },
    });
    const broken = api.instance({
      admin: {
        uploader: nodeUploader({ store: api.store, model: 'test-double/bert-384', embedder: async () => failing }),
      },
    });
    const before = (await json<Page<AdminDocument>>(call('GET', '/documents', admin))).total;
    const form = new FormData();
    form.set('file', new File(['# Broken\n\nThis page never makes it.\n'], 'broken.md'));
    const res = await broken.request('/api/admin/documents/upload', {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}` },
      body: form,
    });
    const progress = await events(res);
    expect(progress.at(-1)).toMatchObject({
      type: 'done',
      added: 0,
      failed: [{ source: 'uploads/broken.md', error: expect.stringContaining('the model crashed') }],
    });
    expect((await json<Page<AdminDocument>>(call('GET', '/documents', admin))).total).toBe(before);
    expect((await api.store.db.query("select 1 from kb_documents where source = 'uploads/broken.md'")).rows).toEqual(
      [],
    );
  });

  it('a server without an uploader (Workers) answers 501 and says to use the CLI', async () => {
    const res = await api.instance().request('/api/admin/documents/url', {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/' }),
    });
    expect(res.status).toBe(501);
    expect((await errorOf(res)).message).toContain('npm run ingest');
  });

  describe('a page or sitemap URL', () => {
    const servers: Server[] = [];
    afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections()))));
    const serve = async (handler: RequestListener, host: string) => {
      const hits: string[] = [];
      const server = createServer((req, res) => (hits.push(req.url ?? ''), handler(req, res)));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, host, resolve));
      return {
        base: `http://${host}:${(server.address() as AddressInfo).port}`,
        port: (server.address() as AddressInfo).port,
        hits,
      };
    };
    const page = (text: string) =>
      `<html><head><title>${text}</title></head><body><main><p>${text}</p></main></body></html>`;
    const crawlUrl = (app: typeof api.app, url: string) =>
      app.request('/api/admin/documents/url', {
        method: 'POST',
        headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url }),
      });

    it('refuses a loopback URL by default, with the reason in the progress, and sends it nothing', async () => {
      const internal = await serve(
        (_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page('Internal admin page')),
        '127.0.0.1',
      );
      const progress = await events(await crawlUrl(api.app, `${internal.base}/`));
      const reason = 'refused: 127.0.0.1 is a loopback address';
      expect(progress).toContainEqual({
        type: 'document',
        source: `${internal.base}/`,
        outcome: 'failed',
        chunks: 0,
        done: 1,
        total: 1,
        error: reason,
      });
      expect(progress.at(-1)).toMatchObject({
        type: 'done',
        added: 0,
        failed: [{ source: `${internal.base}/`, error: reason }],
      });
      expect(internal.hits).toEqual([]);
    });

    it('reads a page of at most 5 MiB (the upload limit) and skips sitemap entries of another origin, saying so', async () => {
      const internal = await serve(
        (_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page('Internal')),
        '127.0.0.1',
      );
      // docs.stand-in.test stands in for a public docs site (no public host can be reached from the test
      // machine): served on 127.0.0.2, which the policy treats as public; every other address keeps the
      // real policy.
      const site = await serve((req, res) => {
        if (req.url === '/sitemap.xml') {
          const locs = [`${standIn}/big`, `${standIn}/small`, `${internal.base}/other`].map(
            (loc) => `<url><loc>${loc}</loc></url>`,
          );
          return void res
            .writeHead(200, { 'content-type': 'application/xml' })
            .end(`<urlset>${locs.join('')}</urlset>`);
        }
        if (req.url === '/big')
          return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('x'.repeat(6 * 1024 * 1024)));
        if (req.url === '/small')
          return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('Pluto is served on Tuesdays.'));
        res.writeHead(404).end();
      }, '127.0.0.2');
      const standIn = `http://docs.stand-in.test:${site.port}`;
      const uploader = nodeUploader({
        store: api.store,
        model: 'test-double/bert-384',
        embedder,
        crawlSeams: {
          resolve: async (host) => (host === 'docs.stand-in.test' ? ['127.0.0.2'] : []),
          addressPolicy: (address) => (address === '127.0.0.2' ? null : publicAddressesOnly(address)),
        },
      });
      const progress = await events(await crawlUrl(api.instance({ admin: { uploader } }), `${standIn}/sitemap.xml`));
      expect(progress).toContainEqual(
        expect.objectContaining({
          type: 'document',
          source: `${standIn}/big`,
          outcome: 'failed',
          error: 'too large: over 5 MiB',
        }),
      );
      expect(progress).toContainEqual(
        expect.objectContaining({ type: 'document', source: `${standIn}/small`, outcome: 'added' }),
      );
      expect(progress.at(-1)).toMatchObject({
        type: 'done',
        added: 1,
        skipped: [`${internal.base}/other (listed by ${standIn}/sitemap.xml, another origin than the sitemap's)`],
      });
      expect(internal.hits).toEqual([]);
    });
  });
});
