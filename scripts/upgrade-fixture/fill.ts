/**
 * Runs inside a checkout of a release (scripts/upgrade-fixture/make.ts copies it there): fills that
 * release's embedded database through that release's own app and store — documents and chunks through
 * its ingest functions, a visitor's chat session with answers and a refusal, feedback, an admin who signed
 * in by link and changed the settings — then writes what the database holds as data-only SQL.
 *
 * Only what every release since v0.1.0 has is used here (createTestApi, seedKb, the HTTP API); a release
 * that changed one of them needs its own copy of this file.
 *
 *   npx tsx scripts/upgrade-fixture/fill.ts <out dir>     (cwd: the release's checkout)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApi, question, TEST_SECRET } from '../../server/testing/api.ts';
import { basis, withSimilarity } from '../../server/testing/vectors.ts';

// v0.1.0 keeps the console's session code under server/admin/ (renamed server/console/ since); the path is a
// variable so this tree's type check and import rules do not resolve it against today's layout.
const SESSION_MODULE = '../../server/admin/session.ts';
const { createLinkToken } = (await import(SESSION_MODULE)) as { createLinkToken: (secret: string) => Promise<string> };

const out = process.argv[2];
if (!out) throw new Error('usage: fill.ts <out dir>');

const api = await createTestApi();
await api.seedKb();

const json = async <T>(res: Response | Promise<Response>): Promise<T> => {
  const r = await res;
  if (!r.ok) throw new Error(`${r.url || 'request'}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
};
const asJson = { headers: { Accept: 'application/json' } };

// A visitor: two answers and a refusal in one session.
const visitor = await api.signIn();
const first = await json<{ session_id: string; answer_message_id: string }>(
  api.chat(visitor.token, question(basis(0), 'How do refunds work?'), asJson),
);
const second = await json<{ answer_message_id: string }>(
  api.chat(visitor.token, question(basis(1), 'When are invoices sent?', { session_id: first.session_id }), asJson),
);
const refused = await json<{ message_id: string }>(
  api.chat(
    visitor.token,
    question(withSimilarity(300, 0.1), 'Who won the match?', { session_id: first.session_id }),
    asJson,
  ),
);

// Feedback on both answers.
const rate = (body: object) =>
  json(
    api.app.request('/api/feedback', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${visitor.token}` },
      body: JSON.stringify(body),
    }),
  );
await rate({ message_id: first.answer_message_id, rating: 1 });
await rate({ message_id: second.answer_message_id, rating: -1, comment: 'Which day of the month?' });

// The local admin signs in by link and changes the settings.
const { access_token: admin } = await json<{ access_token: string }>(
  api.app.request('/api/admin/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ link_token: await createLinkToken(TEST_SECRET) }),
  }),
);
const settings = {
  evidence_threshold: 0.3,
  lexical_threshold: 0.6,
  hybrid_threshold: 0.35,
  greeting: 'Hello from the release before',
  refusal_suggestions: ['Email billing@example.com'],
};
await json(
  api.app.request('/api/admin/settings', {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` },
    body: JSON.stringify(settings),
  }),
);

// Every table's rows, as data-only SQL that loads into a database migrated to this release.
const db = api.store.db;
const tables = (
  await db.query<{ schema: string; name: string }>(
    `select n.nspname as schema, c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind = 'r' and n.nspname in ('public', 'auth') order by 1, 2`,
  )
).rows;
const sql: string[] = [
  '-- Data-only dump of a database filled by this release (scripts/upgrade-fixture/make.ts). Do not edit.',
  "-- Loads after the release's migrations, replacing the rows they seeded (the settings row, the corpus",
  '-- statistics); triggers and foreign keys are off while it loads.',
  'set session_replication_role = replica;',
];
for (const { schema, name } of tables) {
  const table = `${schema}.${name}`;
  const columns = (
    await db.query<{ name: string }>(
      `select attname as name from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
      [table],
    )
  ).rows.map((c) => `"${c.name}"`);
  const { rows } = await db.query<{ rows: unknown }>(
    `select coalesce(json_agg(t order by t::text), '[]') as rows from ${table} t`,
  );
  const data = JSON.stringify(rows[0]!.rows);
  sql.push(`delete from ${table};`);
  if (data === '[]') continue;
  const list = columns.join(', ');
  sql.push(
    `insert into ${table} (${list}) overriding system value select ${list} from json_populate_recordset(null::${table}, $fixture$${data}$fixture$);`,
  );
}
for (const { name } of (
  await db.query<{ name: string }>(
    `select format('%I.%I', schemaname, sequencename) as name from pg_sequences where schemaname in ('public', 'auth') and last_value is not null order by 1`,
  )
).rows) {
  const { rows } = await db.query<{ v: string }>(`select last_value::text as v from ${name}`);
  sql.push(`select setval('${name}', ${rows[0]!.v});`);
}
sql.push('set session_replication_role = origin;', '');
writeFileSync(join(out, 'data.sql'), sql.join('\n'));

// What the upgrade test checks against: who is who in the data above.
const facts = {
  visitor_user_id: visitor.userId,
  session_id: first.session_id,
  answers: [first.answer_message_id, second.answer_message_id],
  refusal_message_id: refused.message_id,
  settings,
};
writeFileSync(join(out, 'facts.json'), `${JSON.stringify(facts, null, 2)}\n`);
await api.close();
