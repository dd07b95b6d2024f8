// Long file: one fake answers every endpoint the widget calls; its scenarios share in-memory tokens, sessions, answers and fault switches.
/**
 * A stand-in for the kb-chat API, mounted as web-test-runner dev-server middleware (Koa).
 *
 * The widget tests fake the server at this HTTP boundary on purpose: the real server is covered by the
 * server tests and by the end-to-end test; here we need precise control over timing (deltas written with
 * delays so incremental rendering is observable), over refusals, and over a connection dropped mid-answer.
 * Everything else the browser loads is real: transformers.js, the ONNX Runtime wasm (served at /ort/ from
 * node_modules/onnxruntime-web/dist, as the real server does) and the test-double model (served at /models/).
 *
 * Questions choose the scenario: "weather" → JSON refusal, "ratelimit" → 429 with Retry-After, "drop" → the
 * socket is destroyed after two deltas (only the first time for a message_id: a re-POST of the same
 * message_id replays the stored answer, as the real server does), "many" → five sources, "slow" → long
 * pauses, "xss" → hostile Markdown and a `javascript:` source URL, "xss-batch N" → payload batch N of
 * `POST /__fake/xss` as answer, titles, URLs, excerpts and chunk texts, "xss-blocks N" → the same batch inside
 * code blocks, list items and table cells, and as related titles and URLs; "blocks" → an answer with a code
 * block, a table, lists and related sources; "busy once" → the first POST of a message_id is
 * answered 503 + Retry-After: 1 (the next one normally), "busy always" → every POST of it is; else a normal
 * answer. While `POST /__fake/refuse {on: true}` is in force, every chat request has its connection destroyed
 * before any response (the server is unreachable; browsers may retry such a request once on their own).
 * Sessions (`/api/sessions`) and chunk texts (`/api/chunks/:id`) are kept in memory per fake. `POST /api/feedback`
 * rates an assistant message of the caller's (404 otherwise), shown again in history; `POST /__fake/feedback-fail
 * {times}` answers the next `times` of them 503. Follow-ups: in a session with an earlier question, a question
 * that ends in "it?" / "that?" or starts with "and" / "what about" is answered in context (`answer_start` and
 * the stored message carry `context: {used: true, about}`, about = the earlier question's last two words)
 * unless the request says `context: false`.
 */

import { readFileSync } from 'node:fs';
import { hasSharedData, sharedData } from '../../scripts/lib/shared-data.mjs';

/** The XSS payload lists (../shared/data/xss/ beside the repository): one payload a line / one JSON object a line. */
export function xssPayloads() {
  const lines = readFileSync(sharedData('xss/payloadbox-xss-payload-list-public.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const vectors = readFileSync(sharedData('xss/h5sc-vectors-public.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l).payload);
  return [...lines, ...vectors];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const ANSWER = [
  'Refunds are accepted ',
  'within **30 days** ',
  'of purchase [1]. ',
  'See also the ',
  'warranty terms [2].',
];
const CITATIONS = [
  {
    n: 1,
    chunk_id: 'c1',
    document_id: 'd1',
    title: 'Refund policy',
    page: 3,
    section: 'Returns',
    url: '/docs/refunds#returns',
    similarity: 0.71,
  },
  {
    n: 2,
    chunk_id: 'c2',
    document_id: 'd2',
    title: 'Warranty',
    page: null,
    section: 'Coverage',
    url: 'https://example.com/warranty',
    similarity: 0.55,
  },
];
const MANY = [
  ...CITATIONS,
  {
    n: 3,
    chunk_id: 'c3',
    document_id: 'd3',
    title: 'Shipping',
    page: 1,
    section: null,
    url: 'https://example.com/shipping',
    similarity: 0.5,
  },
  {
    n: 4,
    chunk_id: 'c4',
    document_id: 'd4',
    title: 'Exchanges',
    page: null,
    section: 'Swaps',
    url: null,
    similarity: 0.45,
  },
  {
    n: 5,
    chunk_id: 'c5',
    document_id: 'd5',
    title: 'Store credit',
    page: 7,
    section: null,
    url: 'https://example.com/credit',
    similarity: 0.4,
  },
];
const EXCERPTS = {
  c1: 'Refunds are accepted within 30 days of purchase, provided the item is unused.',
  c2: 'The warranty covers manufacturing defects for two years.',
};
const CHUNKS = {
  c1: '## Returns\n\nRefunds are accepted within **30 days** of purchase, provided the item is unused and in its original packaging.',
  c2: 'The warranty covers manufacturing defects for two years. It does not cover accidental damage.',
};
/** Every block type an answer may have at once (a real answer has at most one), streamed mid-fence. */
const BLOCKS = [
  'To embed the widget, add the loader to your page [1]:\n\n```html\n',
  '<script type="module" src="https://docs.example.com/kb-chat.js"></script> <kb-chat heading="Ask our docs" greeting="Hello &amp; welcome"></kb-chat>\n',
  'if (a < b && items[1]) {\n\treturn "[2]";\n}\n```\n\nThe loader reads these attributes:\n\n',
  '| Attribute | Default | Meaning |\n| --- | --- | --- |\n',
  '| `api-url` | the script origin, e.g. `https://docs.example.com/api/v1/knowledge-base/chat` | Where questions go [2] |\n',
  '| `theme` | `auto` | Light or dark |\n\n[2]\n\nThen:\n\n3. Open the page.\n4. Click the bubble [1].\n',
  '   ```\n   npm run start -- --port 8787\n   ```\n\n- Works on phones [1]\n- Keyboard accessible',
];
const RELATED = [
  { chunk_id: 'c3', document_id: 'd3', title: 'Shipping', page: 1, section: null, url: 'https://example.com/shipping' },
  { chunk_id: 'c4', document_id: 'd4', title: 'Exchanges', page: null, section: 'Swaps', url: null },
];
const XSS = [
  'Look: <img src=x onerror="window.__kbXss=1"> ',
  'and [click me](javascript:window.__kbXss=2) ',
  'and <script>window.__kbXss=3</script> done.',
];

export function createFakeApi({ delayMs = 150 } = {}) {
  /** Access token → its user; refresh token → its user (used once, as the real server's). */
  const tokens = new Map();
  const refreshTokens = new Map();
  /** What the fake saw, for assertions: chat request bodies + auth, asset paths, CSP violation reports. */
  const log = { chat: [], assets: [], csp: [], auth: 0, refresh: 0, captcha: [], feedback: [] };
  /** Sessions by id: { id, title, created_at, updated_at, owner, messages: StoredMessage[] }. */
  let sessions = new Map();
  /** message_id → the stored answer's events, for idempotent replay. */
  let answers = new Map();
  /** message_id → how many POSTs it has had (the fault scenarios fail the first ones). */
  let attempts = new Map();
  /** POST /__fake/refuse: chat requests get no response at all. */
  let refusing = false;
  /** Seconds an issued access token lives (POST /__fake/token-lifetime sets it; the real server's is an hour). */
  let tokenLifetime = 3600;
  /** POST /__fake/refresh-limited {times}: how many renewals are still to be answered 429 (as the server's per-client limit). */
  let refreshLimited = 0;
  /** POST /__fake/captcha {on}: /api/config asks for Turnstile (the fake script below) and sign-ups need its token. */
  let captcha = false;
  /** Set by /__fake/hold-assets: asset requests wait for its release. */
  let held = null;
  /** POST /__fake/feedback-fail: how many feedback requests are still to fail (503). */
  let feedbackFailures = 0;
  /** POST /__fake/greeting {greeting}: the greeting an admin set, sent in /api/config. */
  let greeting = null;
  /** POST /__fake/conversation {support_url, starters}: what an admin set, sent in /api/config. */
  let conversation = {};
  /** Payload batches for the XSS tests (POST /__fake/xss). */
  let xss = [];
  const chunks = new Map(Object.entries(CHUNKS));

  /** The user the request's token belongs to (what owns sessions), if the token is valid. */
  function authorized(ctx) {
    const token = /^Bearer (.+)$/.exec(ctx.get('authorization') ?? '')?.[1];
    return token ? tokens.get(token) : undefined;
  }

  /** A session as the real server issues it: an access token and a one-use refresh token for `user`. */
  function session(ctx, user, expiresIn) {
    const token = `token-${crypto.randomUUID()}`;
    const refresh = `refresh-${crypto.randomUUID()}`;
    tokens.set(token, user);
    refreshTokens.set(refresh, user);
    return json(ctx, 200, { access_token: token, user_id: user, expires_in: expiresIn, refresh_token: refresh });
  }

  function xssBatch(index, blocks = false) {
    const payloads = xss[index] ?? [];
    const citations = payloads.map((p, i) => {
      chunks.set(`x${index}-${i}`, p);
      return {
        n: i + 1,
        chunk_id: `x${index}-${i}`,
        document_id: `xd${i}`,
        title: p,
        page: null,
        section: p,
        url: p,
        similarity: 0.5,
        excerpt: p,
      };
    });
    const markdown = blocks
      ? // Each payload as code (alone and inside a list item), as a list item and as table cells, then a lone marker.
        payloads
          .map((p, i) => {
            const n = i + 1;
            return [
              `Run this [${n}]:`,
              '',
              '```',
              p,
              '```',
              '',
              `- ${p} [${n}]`,
              '- x',
              '',
              '1. step',
              '   ```',
              `   ${p}`,
              '   ```',
              '',
              '| Name | Value |',
              '| --- | --- |',
              `| ${p} | ${p} [${n}] |`,
              '',
              `[${n}]`,
            ].join('\n');
          })
          .join('\n\n')
      : payloads.map((p, i) => `${p} [${i + 1}]`).join('\n\n');
    const related = blocks
      ? payloads.map((p, i) => ({
          chunk_id: `xr${i}`,
          document_id: `xrd${i}`,
          title: p,
          page: null,
          section: p,
          url: p,
        }))
      : undefined;
    return {
      deltas: [markdown.slice(0, markdown.length >> 1), markdown.slice(markdown.length >> 1)],
      citations,
      related,
    };
  }

  /** Stores the turn; returns the assistant message's id (what answer_end and a refusal carry). */
  /** The fake's follow-up reading (the real one is protocol/context.ts): what this question is about, if anything. */
  function contextOf(body, sessionId) {
    if (body.context === false || !/\b(it|that)\?$|^(and|what about)\b/i.test(body.message.trim())) return undefined;
    const earlier = sessions
      .get(sessionId)
      ?.messages.filter((m) => m.role === 'user')
      .at(-1);
    if (!earlier) return undefined;
    return {
      used: true,
      about: earlier.content
        .replace(/[?.!]+$/, '')
        .toLowerCase()
        .split(/\s+/)
        .slice(-2)
        .join(' '),
    };
  }

  function remember(
    token,
    body,
    sessionId,
    text,
    citations,
    refusal,
    related,
    answerId = crypto.randomUUID(),
    context = undefined,
  ) {
    const now = new Date().toISOString();
    let session = sessions.get(sessionId);
    if (!session) {
      session = {
        id: sessionId,
        title: body.message.slice(0, 80),
        created_at: now,
        updated_at: now,
        owner: token,
        messages: [],
      };
      sessions.set(sessionId, session);
    }
    session.updated_at = now;
    session.messages.push(
      { id: body.message_id, role: 'user', content: body.message, citations: null, created_at: now },
      {
        id: answerId,
        role: 'assistant',
        content: text,
        citations: refusal ? null : citations,
        ...(refusal ? { refusal } : {}),
        ...(related?.length ? { related } : {}),
        ...(context ? { context } : {}),
        created_at: now,
      },
    );
    return answerId;
  }

  function json(ctx, status, body) {
    ctx.status = status;
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(body);
  }

  async function readJson(req) {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return undefined;
    }
  }

  async function chat(ctx) {
    const rawToken = /^Bearer (.+)$/.exec(ctx.get('authorization') ?? '')?.[1];
    const body = await readJson(ctx.req);
    const lastEventId = ctx.get('last-event-id') || undefined;
    log.chat.push({ token: rawToken, body, lastEventId });
    const token = authorized(ctx);
    if (!token) return json(ctx, 401, { error: { code: 'unauthorized', message: 'bad token' } });
    const valid =
      body &&
      (body.embedding === undefined ||
        (Array.isArray(body.embedding) &&
          body.embedding.length === 384 &&
          body.embedding.every((x) => typeof x === 'number' && Number.isFinite(x)))) &&
      typeof body.message === 'string' &&
      UUID.test(body.message_id) &&
      (body.session_id === undefined || UUID.test(body.session_id));
    if (!valid) return json(ctx, 400, { error: { code: 'invalid_request', message: 'invalid body' } });

    const message = body.message.toLowerCase();
    const sessionId = body.session_id ?? crypto.randomUUID();
    if (message.startsWith('xss-q')) {
      // A hostile question is echoed back at once, as a refusal whose suggestions are the question's lines.
      return json(ctx, 200, {
        type: 'refusal',
        reason: 'no_evidence',
        message: body.message,
        suggestions: body.message.split('\n'),
      });
    }
    if (message.includes('lunch')) {
      // A refusal as the real server sends it today: the built-in actions, and closest pages near the gate.
      const refusal = {
        type: 'refusal',
        reason: 'no_evidence',
        message: "I don't have enough information to answer that question.",
        suggestions: [],
        actions: ['rephrase', 'contact_support'],
        closest: [
          {
            chunk_id: 'c1',
            document_id: 'd1',
            title: 'Opening hours',
            page: null,
            section: 'Canteen',
            url: 'https://docs.example.com/hours',
          },
          {
            chunk_id: 'c2',
            document_id: 'd2',
            title: 'Menu <b>bold</b>',
            page: null,
            section: null,
            url: 'javascript:alert(1)',
          },
        ],
      };
      const answerId = remember(token, body, sessionId, refusal.message, null, {
        reason: refusal.reason,
        suggestions: [],
        actions: refusal.actions,
        closest: refusal.closest,
      });
      return json(ctx, 200, { ...refusal, message_id: answerId });
    }
    if (message.includes('weather')) {
      const refusal = {
        type: 'refusal',
        reason: 'no_evidence',
        message: "I couldn't find this in our documentation.",
        suggestions: ['How do refunds work?', 'What does the warranty cover?'],
      };
      const answerId = remember(token, body, sessionId, refusal.message, null, {
        reason: refusal.reason,
        suggestions: refusal.suggestions,
      });
      return json(ctx, 200, { ...refusal, message_id: answerId });
    }
    const attempt = (attempts.get(body.message_id) ?? 0) + 1;
    attempts.set(body.message_id, attempt);
    if (message.includes('busy always') || (message.includes('busy once') && attempt === 1)) {
      ctx.set('Retry-After', '1');
      return json(ctx, 503, { error: { code: 'unavailable', message: 'Many people are asking right now.' } });
    }
    if (refusing) {
      ctx.req.socket.destroy(); // no response at all: fetch rejects as it does when the server is unreachable
      ctx.respond = false;
      return;
    }
    if (message.includes('ratelimit')) {
      ctx.set('Retry-After', '17');
      ctx.set('X-RateLimit-Limit', '20');
      ctx.set('X-RateLimit-Remaining', '0');
      return json(ctx, 429, { error: { code: 'rate_limited', message: 'slow down' } });
    }

    ctx.respond = false; // we write the stream ourselves
    const res = ctx.res;
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.flushHeaders();

    // Idempotent replay: the same message_id gets the stored events again (after Last-Event-ID if given).
    const stored = answers.get(body.message_id);
    if (stored) {
      const from = lastEventId ? Number(lastEventId) + 1 : 0;
      for (const [id, [event, data]] of stored.events.entries()) {
        if (id < from) continue;
        res.write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      }
      res.end();
      return;
    }

    const mode = body.embedding ? 'hybrid' : 'lexical';
    const batch = /xss-(batch|blocks) (\d+)/.exec(message);
    const scenario = batch ? xssBatch(Number(batch[2]), batch[1] === 'blocks') : undefined;
    const blocks = !scenario && message.includes('blocks');
    const deltas = scenario ? scenario.deltas : message.includes('xss') ? XSS : blocks ? BLOCKS : ANSWER;
    const citations = scenario
      ? scenario.citations
      : message.includes('xss')
        ? [{ ...CITATIONS[0], title: '<img src=x onerror="window.__kbXss=4">', url: 'javascript:window.__kbXss=5' }]
        : (message.includes('many') ? MANY : CITATIONS).map((c) => ({
            ...c,
            ...(EXCERPTS[c.chunk_id] ? { excerpt: EXCERPTS[c.chunk_id] } : {}),
          }));
    const related = scenario ? scenario.related : blocks ? RELATED : undefined;
    const answerId = crypto.randomUUID();
    const context = contextOf(body, sessionId);
    const events = [
      [
        'answer_start',
        {
          session_id: sessionId,
          message_id: body.message_id,
          mode,
          confidence: 'high',
          ...(context ? { context } : {}),
        },
      ],
      ...deltas.map((text) => ['answer_delta', { text }]),
      ['sources', related ? { citations, related } : { citations }],
      ['answer_end', { message_id: answerId }],
    ];
    answers.set(body.message_id, { events });
    remember(token, body, sessionId, deltas.join(''), citations, undefined, related, answerId, context);
    const pause = message.includes('slow') ? 1500 : scenario ? 0 : delayMs;
    for (const [id, [event, data]] of events.entries()) {
      if (id > 0) await sleep(pause);
      if (res.destroyed) return;
      res.write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      if (id === 0) res.write(': keep-alive\n\n'); // the real server's heartbeat comment
      if (message.includes('drop') && id === 2) {
        await sleep(delayMs);
        res.destroy(); // no answer_end: the browser sees the connection die mid-answer
        return;
      }
    }
    res.end();
  }

  function history(ctx, path) {
    const token = authorized(ctx);
    if (!token) return json(ctx, 401, { error: { code: 'unauthorized', message: 'bad token' } });
    const mine = [...sessions.values()].filter((s) => s.owner === token);
    if (path === '/api/sessions') {
      const list = mine
        .sort((a, b) => b.updated_at.localeCompare(a.updated_at))
        .map(({ id, title, created_at, updated_at }) => ({ id, title, created_at, updated_at }));
      return json(ctx, 200, { sessions: list });
    }
    const session = mine.find((s) => s.id === decodeURIComponent(path.slice('/api/sessions/'.length)));
    if (!session) return json(ctx, 404, { error: { code: 'not_found', message: 'no such session' } });
    const { id, title, created_at, updated_at, messages } = session;
    return json(ctx, 200, { session: { id, title, created_at, updated_at }, messages });
  }

  /** POST /api/feedback, validated as the real server validates it; only the caller's own assistant messages. */
  async function feedback(ctx) {
    const body = await readJson(ctx.req);
    const token = authorized(ctx);
    log.feedback.push({ body, status: token ? null : 401 });
    if (!token) return json(ctx, 401, { error: { code: 'unauthorized', message: 'bad token' } });
    const comment = body?.comment;
    const valid =
      body &&
      UUID.test(body.message_id) &&
      (body.rating === 1 || body.rating === -1) &&
      (comment === undefined ||
        (typeof comment === 'string' && comment.trim().length >= 1 && comment.trim().length <= 1000));
    if (!valid) return json(ctx, 400, { error: { code: 'invalid_request', message: 'invalid body' } });
    if (feedbackFailures > 0) {
      feedbackFailures--;
      return json(ctx, 503, { error: { code: 'unavailable', message: 'try later' } });
    }
    const message = [...sessions.values()]
      .filter((session) => session.owner === token)
      .flatMap((session) => session.messages)
      .find((m) => m.id === body.message_id && m.role === 'assistant');
    if (!message) return json(ctx, 404, { error: { code: 'not_found', message: 'No such answer.' } });
    message.feedback = body.rating;
    const stored = {
      message_id: message.id,
      rating: body.rating,
      comment: comment?.trim() ?? null,
      updated_at: new Date().toISOString(),
    };
    log.feedback.at(-1).status = 200;
    log.feedback.at(-1).stored = stored;
    return json(ctx, 200, stored);
  }

  async function fakeApi(ctx, next) {
    const path = ctx.path;
    // Same layout as the real server: /ort/ and /models/ are plain static folders.
    if (path.startsWith('/ort/') || path.startsWith('/models/')) {
      log.assets.push(path);
      // /__fake/hold-assets: the model and the wasm wait, so a test can act while the model is loading.
      if (held) await held.promise;
      // The embedder asks for /ort/<version>/<file> (a versioned URL); the files sit unversioned in the package.
      ctx.url = path.startsWith('/ort/')
        ? `/node_modules/onnxruntime-web/dist/${path.slice(5).replace(/^\d[\w.-]*\//, '')}`
        : `/test/fixtures/models/${path.slice(8)}`;
      return next();
    }
    if (path === '/api/auth/anonymous' && ctx.method === 'POST') {
      if (captcha) {
        const token = (await readJson(ctx.req))?.captcha_token;
        log.captcha.push(token ?? null);
        if (token === undefined)
          return json(ctx, 400, { error: { code: 'captcha_required', message: 'captcha_token: is required' } });
        if (typeof token !== 'string' || !token.startsWith('turnstile-ok')) {
          return json(ctx, 403, { error: { code: 'forbidden', message: 'The anti-bot check failed.' } });
        }
      }
      log.auth++;
      return session(ctx, crypto.randomUUID(), tokenLifetime);
    }
    if (path === '/api/auth/refresh' && ctx.method === 'POST') {
      log.refresh++;
      if (refreshLimited > 0) {
        refreshLimited--;
        ctx.set('Retry-After', '7');
        return json(ctx, 429, { error: { code: 'rate_limited', message: 'Too many renewals. Please wait.' } });
      }
      const { refresh_token: refresh } = (await readJson(ctx.req)) ?? {};
      const user = refreshTokens.get(refresh);
      if (!user) return json(ctx, 401, { error: { code: 'unauthorized', message: 'cannot renew' } });
      refreshTokens.delete(refresh);
      return session(ctx, user, tokenLifetime);
    }
    if (path === '/api/config' && ctx.method === 'GET') {
      // Held too: the model and wasm may come from the browser's caches (an earlier test loaded them), but
      // the embedder asks for its config first, every time.
      if (held) await held.promise;
      return json(ctx, 200, {
        embed_model: 'test-double/bert-384',
        dimensions: 384,
        models_url: '/models/',
        ort_wasm_url: '/ort/',
        ...(captcha
          ? {
              captcha: {
                provider: 'turnstile',
                site_key: 'fake-site-key',
                script_url: '/__fake/turnstile.js?render=explicit',
              },
            }
          : {}),
        ...(greeting ? { greeting } : {}),
        ...conversation,
      });
    }
    if (path === '/__fake/conversation' && ctx.method === 'POST') {
      conversation = (await readJson(ctx.req)) ?? {};
      return json(ctx, 200, conversation);
    }
    if (path === '/__fake/greeting' && ctx.method === 'POST') {
      greeting = (await readJson(ctx.req))?.greeting ?? null;
      return json(ctx, 200, { greeting });
    }
    if (path === '/api/chat' && ctx.method === 'POST') return chat(ctx);
    if (path === '/api/feedback' && ctx.method === 'POST') return feedback(ctx);
    if (path === '/__fake/feedback-fail' && ctx.method === 'POST') {
      feedbackFailures = (await readJson(ctx.req))?.times ?? 0;
      return json(ctx, 200, {});
    }
    if (path.startsWith('/api/sessions') && ctx.method === 'GET') return history(ctx, path);
    if (path.startsWith('/api/chunks/') && ctx.method === 'GET') {
      if (!authorized(ctx)) return json(ctx, 401, { error: { code: 'unauthorized', message: 'bad token' } });
      const id = decodeURIComponent(path.slice('/api/chunks/'.length));
      const content = chunks.get(id);
      if (content === undefined) return json(ctx, 404, { error: { code: 'not_found', message: 'no such chunk' } });
      return json(ctx, 200, { chunk_id: id, content, title: id, section: null, page: null, url: null });
    }
    if (path === '/__fake/xss' && ctx.method === 'POST') {
      const { size } = await readJson(ctx.req);
      const all = xssPayloads();
      xss = [];
      for (let i = 0; i < all.length; i += size) xss.push(all.slice(i, i + size));
      return json(ctx, 200, { batches: xss.length, payloads: all });
    }
    if (path === '/__fake/log') return json(ctx, 200, log);
    if (path === '/__fake/hold-assets' && ctx.method === 'POST') {
      const on = (await readJson(ctx.req))?.on === true;
      if (on && !held) {
        let release;
        const promise = new Promise((resolve) => (release = resolve));
        held = { promise, release };
      } else if (!on && held) {
        held.release();
        held = null;
      }
      return json(ctx, 200, { held: Boolean(held) });
    }
    if (path === '/__fake/refuse' && ctx.method === 'POST') {
      refusing = (await readJson(ctx.req))?.on === true;
      return json(ctx, 200, { refusing });
    }
    // Whether ../shared/data/<path> is there (scripts/lib/shared-data.mjs): tests that need it skip when it is
    // not, except in CI, where the lookup throws and the test fails with its message.
    if (path === '/__fake/shared') {
      try {
        return json(ctx, 200, { present: hasSharedData(ctx.query.path ?? '') });
      } catch (error) {
        return json(ctx, 500, { error: { code: 'shared_data_missing', message: String(error.message) } });
      }
    }
    if (path === '/__fake/reset' && ctx.method === 'POST') {
      log.chat = [];
      log.assets = [];
      log.csp = [];
      log.auth = 0;
      log.refresh = 0;
      log.captcha = [];
      log.feedback = [];
      feedbackFailures = 0;
      greeting = null;
      conversation = {};
      captcha = false;
      tokenLifetime = 3600;
      refreshLimited = 0;
      sessions = new Map();
      answers = new Map();
      attempts = new Map();
      refusing = false;
      held?.release();
      held = null;
      return json(ctx, 200, {});
    }
    if (path === '/__fake/captcha' && ctx.method === 'POST') {
      captcha = (await readJson(ctx.req)).on === true;
      return json(ctx, 200, {});
    }
    if (path === '/__fake/turnstile.js') {
      // Cloudflare's Turnstile cannot be reached from here: a stand-in with its explicit-render API, which
      // shows a box in the container and calls back with a token the fake sign-up accepts.
      ctx.type = 'text/javascript';
      ctx.body = `let n = 0;
window.turnstile = {
  render(container, options) {
    const id = 'w' + ++n;
    const box = document.createElement('div');
    box.className = 'fake-turnstile';
    box.dataset.sitekey = options.sitekey;
    box.textContent = 'Checking you are human…';
    container.append(box);
    setTimeout(() => options.callback('turnstile-ok-' + id), 100);
    return id;
  },
  remove(id) { window.__turnstileRemoved = (window.__turnstileRemoved || []).concat(id); },
};`;
      return;
    }
    if (path === '/__fake/refresh-limited' && ctx.method === 'POST') {
      refreshLimited = (await readJson(ctx.req)).times;
      return json(ctx, 200, {});
    }
    if (path === '/__fake/token-lifetime' && ctx.method === 'POST') {
      tokenLifetime = (await readJson(ctx.req)).seconds;
      return json(ctx, 200, {});
    }
    if (path === '/__fake/csp-report' && ctx.method === 'POST') {
      log.csp.push(await readJson(ctx.req));
      ctx.status = 204;
      return;
    }
    await next();
    // Every page and worker script gets a same-origin-only policy: a request to any other origin is blocked
    // *and* reported to /__fake/csp-report, so "nothing leaves the origin" is checked by the browser itself.
    ctx.set(
      'Content-Security-Policy',
      "default-src 'self' blob: data: 'unsafe-inline' 'unsafe-eval' 'wasm-unsafe-eval'; report-uri /__fake/csp-report",
    );
  }
  return fakeApi;
}
