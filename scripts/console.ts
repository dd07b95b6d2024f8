/**
 * `npm run console -- link [--url http://host:port]`: prints a one-time sign-in link to the site-owner
 * console (/admin) of the embedded server, for the local admin. The link holds a token signed with the
 * server's JWT secret (KB_JWT_SECRET, or the one kept in KB_DATA_DIR), valid 15 minutes and usable once;
 * it is in the URL's fragment, so it never reaches a server log or a Referer. On Supabase, admins sign in
 * with Supabase Auth instead (see docs/console.md).
 *
 * `npm run console -- answer-key` (SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY set): makes a new answer write
 * key, stores its SHA-256 in the project (kb_set_answer_write_key, service role only) and prints the key for
 * `wrangler secret put KB_ANSWER_WRITE_KEY`. Run again to rotate: the old key stops working at once.
 */
import { parseArgs } from 'node:util';
import ws from 'ws';
import { createLinkToken, LINK_TTL_SECONDS } from '../server/console/session.ts';
import { readConfig } from '../server/config/index.ts';
import { localJwtSecret } from '../server/runtime/node/jwt-secret.ts';
import { answerWriteKeyHash, newAnswerWriteKey } from '../server/store/answer-key.ts';
import { setSupabaseAnswerWriteKey } from '../server/store/supabase.ts';

const USAGE = `Usage: npm run console -- link [--url <server URL>]
       npm run console -- answer-key

  link        print a one-time sign-in link to the console (/admin), valid ${LINK_TTL_SECONDS / 60} minutes
  --url       the server's address (default http://127.0.0.1:$PORT, PORT default 8787)
  answer-key  Supabase (SUPABASE_URL, SUPABASE_SERVICE_ROLE_KEY): make the key the Worker writes answers
              with, store its hash in the project, print it for \`wrangler secret put KB_ANSWER_WRITE_KEY\`
              (the embedded server, npm start, makes and stores its own)`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { url: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
const command = positionals[0];
if (values.help || (command !== 'link' && command !== 'answer-key')) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 1);
}

if (command === 'answer-key') {
  const url = process.env.SUPABASE_URL?.trim();
  const key = process.env.SUPABASE_SERVICE_ROLE_KEY?.trim();
  if (!url || !key) {
    console.error(
      'answer-key sets the key on Supabase: set SUPABASE_URL and SUPABASE_SERVICE_ROLE_KEY.\n' +
        'The embedded server (npm start) needs nothing: it keeps its key in KB_DATA_DIR and stores its hash itself.',
    );
    process.exit(1);
  }
  const answerWriteKey = newAnswerWriteKey();
  await setSupabaseAnswerWriteKey({ url, key, realtimeTransport: ws }, await answerWriteKeyHash(answerWriteKey));
  // The key on stdout alone (pipe it: `npm run -s admin -- answer-key | npx wrangler secret put KB_ANSWER_WRITE_KEY`);
  // what to do with it on stderr.
  console.error(`Stored the hash of a new answer write key in ${url}. Until the Worker has it, answers are refused:`);
  console.error('  npx wrangler secret put KB_ANSWER_WRITE_KEY   (paste the line below)');
  console.log(answerWriteKey);
} else {
  const config = readConfig(process.env);
  const secret = config.jwtSecret ?? (await localJwtSecret(config.dataDir));
  const base = (values.url ?? `http://127.0.0.1:${config.port || 8787}`).replace(/\/+$/, '');
  console.log(`${base}/admin/#link=${await createLinkToken(secret)}`);
}
