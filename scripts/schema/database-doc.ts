/**
 * docs/database.md's generated part: one entry per SQL function — what it is for (its `comment on
 * function`), who may call it (its grants, read from the database), who calls it and whether the Supabase
 * store retries it (server/store/functions.ts), and the migrations that defined it. Everything above the
 * marker line is written by hand and kept as it is.
 */
import { describeFunction, type SqlFunction, type Via } from '../../server/store/functions.ts';
import type { FunctionFacts } from './dump.ts';
import type { MigrationFacts } from './migrations.ts';

export const MARKER =
  '<!-- Generated below by `npm run schema` (scripts/schema/database-doc.ts): edit the migrations or server/store/functions.ts, not this part. -->';

/** The hand-written top (up to and including the marker line) and the generated rest. */
export function splitDoc(doc: string): { top: string; generated: string } {
  const at = doc.indexOf(MARKER);
  if (at < 0) return { top: `${doc.trimEnd()}\n\n${MARKER}\n`, generated: '' };
  const end = at + MARKER.length;
  return { top: `${doc.slice(0, end)}\n`, generated: doc.slice(end + 1) };
}

const VIA: Record<Via, string> = {
  anon: 'the chat store with the anon key, no user token (health, config)',
  visitor: "the chat store with the visitor's own JWT (RLS applies)",
  console: "the chat store with an admin's JWT; the function refuses all but admins itself",
  service: 'the ingestion and admin CLIs with the service-role key (the embedded store: as the owner)',
  sql: 'other SQL functions, triggers or CHECK constraints only; no store calls it',
};

const SHORT_VIA: Record<Via, string> = {
  anon: 'anon key',
  visitor: 'visitor',
  console: 'console (admins)',
  service: 'service role',
  sql: 'SQL only',
};

function retried(f: SqlFunction | undefined): string {
  if (!f || f.via === 'sql') return '—';
  if ('embeddedOnly' in f) return 'no (embedded store only)';
  return f.retried ? 'yes' : 'no';
}

/** GitHub's heading anchor for a function's name (underscores are kept). */
const anchor = (name: string) => name;

export function renderFunctionDocs(facts: FunctionFacts[], migrations: MigrationFacts): string {
  const names = [...new Set(facts.map((f) => f.name))];
  const repeated = [...migrations.definitions].filter(([, d]) => d.filter((x) => x.how === 'create').length > 1).length;
  const lines: string[] = [
    '',
    '## SQL functions',
    '',
    `${names.length} functions in schema public; ${migrations.createStatements} \`create function\` statements across ${migrations.migrations.length} migrations; ${repeated} functions created in more than one migration. The full current definition of each is in [supabase/schema.sql](../supabase/schema.sql).`,
    '',
    '"May call it" is the grants (EXECUTE) of the three API roles; the owner may call everything. "Retried" is whether the Supabase store retries the call after a transient failure (server/store/rpc-retry.ts).',
    '',
    '| Function | May call it | Called by | Retried | Last defined in |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const f of facts) {
    const d = describeFunction(f.name);
    const last = migrations.definitions.get(f.name)?.at(-1)?.migration ?? '?';
    lines.push(
      `| [\`${f.name}\`](#${anchor(f.name)}) | ${f.roles.join(', ') || 'owner only'} | ${d ? SHORT_VIA[d.via] : '?'} | ${retried(d)} | ${last} |`,
    );
  }
  for (const f of facts) {
    const d = describeFunction(f.name);
    const defs = migrations.definitions.get(f.name) ?? [];
    lines.push(
      '',
      `### ${f.name}`,
      '',
      `\`${f.name}(${f.identity})\` → \`${f.result}\``,
      '',
      f.comment ?? '(no comment: add one with `comment on function` in a new migration)',
      '',
      `- May call it: ${f.roles.join(', ') || 'the owner only'}`,
      `- Called by: ${d ? VIA[d.via] : '(not in server/store/functions.ts)'}`,
      `- Retried by the Supabase store: ${retried(d)}`,
      `- Security: ${f.securityDefiner ? 'definer (runs as the owner; checks the caller itself)' : 'invoker (runs as the caller; RLS applies)'}, language ${f.language}`,
      `- Defined in: ${defs.map((x, i) => `${i === defs.length - 1 ? '**' : ''}supabase/migrations/${x.migration}${x.how === 'rename' ? ' (renamed)' : ''}${i === defs.length - 1 ? '**' : ''}`).join(', ') || '?'}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
