/**
 * `npm run admin -- link [--url http://host:port]`: prints a one-time sign-in link to the site-owner
 * console (/admin) of the embedded server, for the local admin. The link holds a token signed with the
 * server's JWT secret (KB_JWT_SECRET, or the one kept in KB_DATA_DIR), valid 15 minutes and usable once;
 * it is in the URL's fragment, so it never reaches a server log or a Referer. On Supabase, admins sign in
 * with Supabase Auth instead (see the README, "Site-owner console").
 */
import { parseArgs } from 'node:util';
import { createLinkToken, LINK_TTL_SECONDS } from '../server/admin/session.ts';
import { readConfig } from '../server/config/index.ts';
import { localJwtSecret } from '../server/node/jwt-secret.ts';

const USAGE = `Usage: npm run admin -- link [--url <server URL>]

  link    print a one-time sign-in link to the console (/admin), valid ${LINK_TTL_SECONDS / 60} minutes
  --url   the server's address (default http://127.0.0.1:$PORT, PORT default 8787)`;

const { positionals, values } = parseArgs({ allowPositionals: true, options: { url: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
if (values.help || positionals[0] !== 'link') {
  console.log(USAGE);
  process.exit(values.help ? 0 : 1);
}
const config = readConfig(process.env);
const secret = config.jwtSecret ?? (await localJwtSecret(config.dataDir));
const base = (values.url ?? `http://127.0.0.1:${config.port || 8787}`).replace(/\/+$/, '');
console.log(`${base}/admin/#link=${await createLinkToken(secret)}`);
