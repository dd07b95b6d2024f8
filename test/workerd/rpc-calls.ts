/**
 * The rpc calls of server/store/supabase.ts, read from its source with the TypeScript compiler API — so the
 * tests that check them against the database (schema.test.ts) and run each one against the PostgREST
 * server (server/store/supabase-rpcs.test.ts) follow the code, not a copy of it.
 *
 * A call is `rpc('name', { args })` or `asVisitor(claims, 'name', { args })`: the function's name is the
 * first string literal argument, its arguments are the keys of the object literal after it (none when there
 * is none). Anything else that looks like an rpc — a name that is not a literal, arguments that are not an
 * object literal — is reported, so the derivation can never silently miss a call.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';

export const SUPABASE_STORE = new URL('../../server/store/supabase.ts', import.meta.url).pathname;
const CALLERS = new Set(['rpc', 'asVisitor']);

export interface RpcCall {
  fn: string;
  /** Argument names in the order the code writes them. */
  args: string[];
  /** The store method (kbStats, beginTurn, …) or exported function (setSupabaseAnswerWriteKey) the call is in. */
  method: string;
  line: number;
}

export function rpcCalls(file = SUPABASE_STORE): RpcCall[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const calls: RpcCall[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && CALLERS.has(node.expression.text)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      const at = node.arguments.findIndex((a) => ts.isStringLiteral(a));
      // The helpers' own bodies pass `fn` on as a variable: those are not call sites.
      if (at < 0 && node.arguments.some((a) => ts.isIdentifier(a) && a.text === 'fn'))
        return ts.forEachChild(node, visit);
      if (at < 0) throw new Error(`${file}:${line}: ${node.expression.text}(…) without a literal function name`);
      const fn = (node.arguments[at] as ts.StringLiteral).text;
      const after = node.arguments[at + 1];
      if (after && !ts.isObjectLiteralExpression(after))
        throw new Error(`${file}:${line}: ${fn}: arguments are not an object literal`);
      const args = (after?.properties ?? []).map((p) => {
        if ((ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && ts.isIdentifier(p.name))
          return p.name.text;
        throw new Error(`${file}:${line}: ${fn}: argument ${p.getText(source)} has no plain name`);
      });
      calls.push({ fn, args, method: enclosingMethod(node), line });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return calls;
}

function enclosingMethod(node: ts.Node): string {
  for (let n: ts.Node | undefined = node; n; n = n.parent) {
    if ((ts.isMethodDeclaration(n) || ts.isFunctionDeclaration(n)) && n.name && ts.isIdentifier(n.name))
      return n.name.text;
  }
  return '(top level)';
}
