/**
 * Where each SQL function was defined: every `create [or replace] function` of supabase/migrations, and
 * every `alter function … rename to …` (a renamed function keeps its body and takes a new name, as
 * search_chunks became kb_search_chunks). Read from the files' text with comments removed, so a comment
 * that mentions a function does not count as defining it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Definition {
  /** The migration's file name. */
  migration: string;
  how: 'create' | 'rename';
}

export interface MigrationFacts {
  migrations: string[];
  /** Every definition per function name (schema public), oldest first. */
  definitions: Map<string, Definition[]>;
  /** `create function` statements across all migrations. */
  createStatements: number;
}

const CREATE = /\bcreate\s+(?:or\s+replace\s+)?function\s+(?:public\.)?"?([a-z_][a-z0-9_]*)"?\s*\(/gi;
const RENAME =
  /\balter\s+function\s+(?:public\.)?"?([a-z_][a-z0-9_]*)"?\s*\([^)]*\)\s*rename\s+to\s+"?([a-z_][a-z0-9_]*)"?/gi;

export function readMigrations(dir: string): MigrationFacts {
  const migrations = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const definitions = new Map<string, Definition[]>();
  let createStatements = 0;
  const add = (name: string, definition: Definition) =>
    definitions.set(name, [...(definitions.get(name) ?? []), definition]);
  for (const migration of migrations) {
    const sql = withoutComments(readFileSync(join(dir, migration), 'utf8'));
    // In file order, creates and renames interleaved as they run.
    const found: { at: number; name: string; how: Definition['how'] }[] = [];
    for (const m of sql.matchAll(CREATE)) {
      // Functions of other schemas (auth.*) are the local shim's or Supabase's, not this schema's.
      if (/\bfunction\s+(?!public\.)[a-z_]+\./i.test(m[0])) continue;
      found.push({ at: m.index!, name: m[1]!.toLowerCase(), how: 'create' });
      createStatements++;
    }
    for (const m of sql.matchAll(RENAME)) found.push({ at: m.index!, name: m[2]!.toLowerCase(), how: 'rename' });
    for (const f of found.sort((a, b) => a.at - b.at)) add(f.name, { migration, how: f.how });
  }
  return { migrations, definitions, createStatements };
}

/** SQL without `--` line comments and block comments; string literals and dollar-quoted bodies kept. */
export function withoutComments(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const rest = sql.slice(i);
    const dollar = /^\$[a-z_]*\$/i.exec(rest);
    if (dollar) {
      const end = sql.indexOf(dollar[0], i + dollar[0].length);
      const stop = end < 0 ? sql.length : end + dollar[0].length;
      // A function body: its own comments go too, but its text stays (it may create nothing we count).
      out +=
        dollar[0] +
        withoutComments(sql.slice(i + dollar[0].length, end < 0 ? sql.length : end)) +
        (end < 0 ? '' : dollar[0]);
      i = stop;
    } else if (rest.startsWith("'")) {
      const end = sql.indexOf("'", i + 1);
      const stop = end < 0 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop;
    } else if (rest.startsWith('--')) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
    } else if (rest.startsWith('/*')) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else {
      out += sql[i];
      i++;
    }
  }
  return out;
}
