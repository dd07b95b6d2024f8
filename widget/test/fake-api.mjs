/**
 * A stand-in for the kb-chat API, mounted as web-test-runner dev-server middleware (Koa).
 *
 * The widget tests fake the server at this HTTP boundary on purpose: the real server is covered by the
 * server tests and by the end-to-end test; here we need precise control over timing (deltas written with
 * delays so incremental rendering is observable), over refusals, and over a connection dropped mid-answer.
 * Everything else the browser loads is real: transformers.js, the ONNX Runtime wasm (served at /ort/ from
 * node_modules/onnxruntime-web/dist, as the real server does) and the test-double model (served at /models/).
 *
 * Questions choose the scenario: "weather" → JSON refusal, "ratelimit" → 429, "drop" → the socket is
 * destroyed after two deltas, "xss" → hostile Markdown and a `javascript:` source URL, else a normal answer.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const ANSWER = ['Refunds are accepted ', 'within **30 days** ', 'of purchase [1]. ', 'See also the ', 'warranty terms [2].'];
const CITATIONS = [
  { n: 1, chunk_id: 'c1', document_id: 'd1', title: 'Refund policy', page: 3, section: 'Returns', url: '/docs/refunds#returns', similarity: 0.71 },
  { n: 2, chunk_id: 'c2', document_id: 'd2', title: 'Warranty', page: null, section: 'Coverage', url: 'https://example.com/warranty', similarity: 0.55 },
];
const XSS = ['Look: <img src=x onerror="window.__kbXss=1"> ', 'and [click me](javascript:window.__kbXss=2) ', 'and <script>window.__kbXss=3</script> done.'];

export function createFakeApi({ delayMs = 150 } = {}) {
  const tokens = new Set();
  /** What the fake saw, for assertions: chat request bodies + auth, asset paths, CSP violation reports. */
  const log = { chat: [], assets: [], csp: [], auth: 0 };

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
    const token = /^Bearer (.+)$/.exec(ctx.get('authorization') ?? '')?.[1];
    const body = await readJson(ctx.req);
    log.chat.push({ token, body });
    if (!token || !tokens.has(token)) return json(ctx, 401, { error: { code: 'unauthorized', message: 'bad token' } });
    const valid =
      body &&
      Array.isArray(body.embedding) &&
      body.embedding.length === 384 &&
      body.embedding.every((x) => typeof x === 'number' && Number.isFinite(x)) &&
      typeof body.message === 'string' &&
      UUID.test(body.message_id) &&
      (body.session_id === undefined || UUID.test(body.session_id));
    if (!valid) return json(ctx, 400, { error: { code: 'invalid_request', message: 'invalid body' } });

    const message = body.message.toLowerCase();
    if (message.includes('weather')) {
      return json(ctx, 200, {
        type: 'refusal',
        reason: 'no_evidence',
        message: "I couldn't find this in our documentation.",
        suggestions: ['How do refunds work?', 'What does the warranty cover?'],
      });
    }
    if (message.includes('ratelimit')) return json(ctx, 429, { error: { code: 'rate_limited', message: 'slow down' } });

    ctx.respond = false; // we write the stream ourselves
    const res = ctx.res;
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.flushHeaders();
    const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const sessionId = body.session_id ?? crypto.randomUUID();
    send('answer_start', { session_id: sessionId, message_id: body.message_id });
    const deltas = message.includes('xss') ? XSS : ANSWER;
    for (const [i, text] of deltas.entries()) {
      await sleep(delayMs);
      send('answer_delta', { text });
      if (message.includes('drop') && i === 1) {
        await sleep(delayMs);
        res.destroy(); // no answer_end: the browser sees the connection die mid-answer
        return;
      }
    }
    await sleep(delayMs);
    const citations = message.includes('xss')
      ? [{ ...CITATIONS[0], title: '<img src=x onerror="window.__kbXss=4">', url: 'javascript:window.__kbXss=5' }]
      : CITATIONS;
    send('sources', { citations });
    await sleep(delayMs);
    send('answer_end', { message_id: crypto.randomUUID() });
    res.end();
  }

  async function fakeApi(ctx, next) {
    const path = ctx.path;
    // Same layout as the real server: /ort/ and /models/ are plain static folders.
    if (path.startsWith('/ort/') || path.startsWith('/models/')) {
      log.assets.push(path);
      ctx.url = path.startsWith('/ort/')
        ? `/node_modules/onnxruntime-web/dist/${path.slice(5)}`
        : `/test/fixtures/models/${path.slice(8)}`;
      return next();
    }
    if (path === '/api/auth/anonymous' && ctx.method === 'POST') {
      log.auth++;
      const token = `token-${crypto.randomUUID()}`;
      tokens.add(token);
      return json(ctx, 200, { access_token: token, user_id: crypto.randomUUID(), expires_in: 3600 });
    }
    if (path === '/api/config' && ctx.method === 'GET') {
      return json(ctx, 200, { embed_model: 'test-double/bert-384', dimensions: 384, models_url: '/models/', ort_wasm_url: '/ort/' });
    }
    if (path === '/api/chat' && ctx.method === 'POST') return chat(ctx);
    if (path === '/__fake/log') return json(ctx, 200, log);
    if (path === '/__fake/reset' && ctx.method === 'POST') {
      log.chat = [];
      log.assets = [];
      log.csp = [];
      log.auth = 0;
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
