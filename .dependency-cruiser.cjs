/**
 * The import rules of this repository, checked by dependency-cruiser in `npm test` (`npm run lint:deps`).
 * docs/architecture.md explains the layers; this file is what holds them. A rule's `comment` is what a
 * violation prints, so it says what to do instead.
 *
 * Terms used below:
 * - test code: `*.test.ts`, test/, server/testing/, widget/test/ and server/ingest/fixtures/. Test code may
 *   import anything (test helpers, scripts/lib/, the modules under test); the rules restrict the code that
 *   ships or runs for users.
 * - Node-only server code: server/runtime/node/ (the Node entry and what only it uses), server/ingest/ (the
 *   ingestion CLI and the Node server's uploads), the embedded database store (server/store/pglite*,
 *   server/store/migrate*) and server/testing/. Everything else under server/ is the runtime-agnostic core
 *   that the Workers entry bundles too: Request/Response and Web Streams only.
 */
const TEST_CODE = '(^test/|^server/testing/|^widget/test/|^server/ingest/fixtures/|\\.test\\.(ts|mts|mjs)$)';
// The SQL stores (embedded and PostgreSQL) and what opens them run on Node only; the Worker reaches the
// database through supabase.ts.
const NODE_ONLY =
  '^server/(runtime/node|ingest|testing)/|^server/store/(pglite|migrate|sql-store|sql-db|postgres|open)';
// npm packages that only run on Node (the embedded database, the Node HTTP server and its socket clients).
const NODE_PACKAGES =
  '^node_modules/(@electric-sql/pglite|@hono/node-server|undici|ws|onnxruntime-node|cli-progress|pg)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Import cycles, type-only ones included: a cycle makes both modules one unit that cannot be understood, ' +
        'tested or split alone. Break it with a narrow interface in the lower module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file: a typo, or a file moved without its importers.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'protocol-is-self-contained',
      severity: 'error',
      comment:
        'protocol/ is the one wire contract, imported by the widget, the console, the server and the scripts: ' +
        'it imports only itself and npm packages (valibot), never another folder of ours or a Node builtin.',
      from: { path: '^protocol/', pathNot: TEST_CODE },
      to: { pathNot: '^protocol/|^node_modules/' },
    },
    {
      name: 'protocol-no-node-builtins',
      severity: 'error',
      comment: 'protocol/ runs in browsers, Workers and Node: no node:* imports.',
      from: { path: '^protocol/', pathNot: TEST_CODE },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'markdown-is-self-contained',
      severity: 'error',
      comment:
        'markdown/ is the Markdown renderer and sanitizer the widget and the console both use: it imports only ' +
        'itself and npm packages (DOMPurify), never the widget, the console, the server or a Node builtin.',
      from: { path: '^markdown/', pathNot: TEST_CODE },
      to: { pathNot: '^markdown/|^node_modules/' },
    },
    {
      name: 'widget-not-to-server',
      severity: 'error',
      comment:
        'The widget talks to the server only over HTTP, through protocol/: never import server/, console/ or scripts/.',
      from: { path: '^widget/', pathNot: TEST_CODE },
      to: { path: '^(server|console|scripts|test)/' },
    },
    {
      name: 'console-not-to-server',
      severity: 'error',
      comment:
        'The console (a browser app) talks to the server only over HTTP, through protocol/: never import server/, widget/ or scripts/.',
      from: { path: '^console/' },
      to: { path: '^(server|widget|scripts|test)/' },
    },
    {
      name: 'server-not-to-browser-code',
      severity: 'error',
      comment:
        'The server shares only protocol/ with the widget and the console: never import widget/, console/ or markdown/.',
      from: { path: '^server/' },
      to: { path: '^(widget|console|markdown)/' },
    },
    {
      name: 'server-not-to-scripts',
      severity: 'error',
      comment:
        'scripts/ are command-line programs built on the server, not the other way round: server code never ' +
        'imports them (test code may use scripts/lib/, the tooling shared with the benchmarks).',
      from: { path: '^server/', pathNot: TEST_CODE },
      to: { path: '^scripts/' },
    },
    {
      name: 'no-test-code-in-shipped-code',
      severity: 'error',
      comment:
        'Code that ships or runs for users must not import test code (test/, server/testing/, widget/test/, ' +
        '*.test.ts). Shared tooling goes in scripts/lib/.',
      from: {
        pathNot: [
          TEST_CODE,
          // The fuzz benchmark (npm run bench -- fuzz) drives the same in-process API and request generator as
          // the fuzz test (server/fuzz.test.ts): measuring the test's own inputs is the point.
          '^scripts/bench/fuzz\\.ts$',
          // The upgrade fixture's filler runs inside a checkout of an older release and fills its database with
          // that release's test API (createTestApi, seedKb): it builds a test fixture, it does not ship.
          '^scripts/upgrade-fixture/',
        ],
      },
      to: { path: TEST_CODE },
    },
    {
      name: 'core-not-to-runtime',
      severity: 'error',
      comment:
        'The runtime-agnostic core (createApp and everything it uses) must not import a runtime entry; the ' +
        'entries under server/runtime/ compose the core, not the other way round.',
      from: { path: '^server/', pathNot: ['^server/runtime/', TEST_CODE] },
      to: { path: '^server/runtime/' },
    },
    {
      name: 'runtimes-apart',
      severity: 'error',
      comment: 'The Node and Workers entries share only the core: neither imports the other.',
      from: { path: '^server/runtime/(node|workers)/' },
      to: { path: '^server/runtime/', pathNot: '^server/runtime/$1/' },
    },
    {
      name: 'core-no-node-builtins',
      severity: 'error',
      comment:
        'The runtime-agnostic server core also runs on Cloudflare Workers: no node:* imports. Node-only code ' +
        'lives in server/runtime/node/, server/ingest/ or the embedded store (server/store/pglite*, migrate*).',
      from: { path: '^(server|widget|console|markdown)/', pathNot: [NODE_ONLY, TEST_CODE] },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-not-to-node-only',
      severity: 'error',
      comment:
        'The runtime-agnostic server core must not import Node-only code (server/runtime/node/, server/ingest/, ' +
        'the embedded store) or Node-only packages: the Workers bundle would pull it in.',
      from: { path: '^server/', pathNot: [NODE_ONLY, TEST_CODE] },
      to: { path: `${NODE_ONLY}|${NODE_PACKAGES}` },
    },
    {
      name: 'auth-not-to-chat',
      severity: 'error',
      comment:
        'chat/ depends on auth/ (tokens); auth/ must not depend on chat/. Request bodies are read with server/http/body.ts.',
      from: { path: '^server/auth/' },
      to: { path: '^server/chat/' },
    },
    {
      name: 'settings-not-to-chat',
      severity: 'error',
      comment: 'chat/ reads settings/; settings/ must not import chat/. A setting and its default live in settings/.',
      from: { path: '^server/settings/' },
      to: { path: '^server/chat/' },
    },
    {
      name: 'http-not-to-routes',
      severity: 'error',
      comment:
        'server/http/ is the plumbing every route uses (errors, body parsing, limits, headers): it must not ' +
        'import a route folder. (auth/jwt.ts is the token check, not a route: rate limits key on its claims.)',
      from: { path: '^server/http/', pathNot: TEST_CODE },
      to: { path: '^server/(chat|console|feedback|history|search|chunks|settings|webhooks|ingest)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|test-results|\\.wrangler)/' },
    // Type-only imports count: a type-only cycle is still a cycle for a reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.mjs', '.js', '.cjs', '.d.ts', '.d.mts'],
    },
    skipAnalysisNotInRules: true,
  },
};
