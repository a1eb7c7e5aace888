// Registers (or rotates the secret of) the OAuth app of a deployed auth server and prints the
// environment the auth server needs:
//   npm run auth-server:register -- --auth-url https://auth.example.com [--org <organization id>]
import { parseArgs } from 'node:util';
import { SecretBox } from '../shared/crypto/secret-box.ts';
import { openDatabase } from '../shared/db/database.ts';
import { ensureAuthServerApp } from './local/auth-server-app.ts';
import { logToStderr, runScript } from './local/run-script.ts';
import { trailingSlashes } from '../shared/net/trailing-slashes.ts';

const usage = 'usage: npm run auth-server:register -- --auth-url <public URL of the auth server> [--org <organization id>]';

await runScript(async (config) => {
  const { values } = parseArgs({ options: { 'auth-url': { type: 'string' }, org: { type: 'string' } }, strict: true });
  const authUrl = values['auth-url'];
  if (authUrl === undefined || !/^https?:\/\//.test(authUrl)) throw new Error(usage);
  const db = await openDatabase(config.MONGO_URL);
  try {
    const app = await ensureAuthServerApp(db, new SecretBox(config.SECRETS_KEY), { authUrl, organizationId: values.org });
    const callback = `${authUrl.replace(trailingSlashes, '')}/device/callback`;
    logToStderr(`OAuth app ready; its callback is ${callback}. Set in the auth server's environment:`);
    for (const line of [
      `SERVICE_OAUTH_CLIENT_ID=${app.clientId}`,
      `SERVICE_OAUTH_CLIENT_SECRET=${app.clientSecret}`,
      `SERVER_URL=${authUrl.replace(trailingSlashes, '')}`,
      `SERVICE_FRONTEND_URL=${config.FRONTEND_URL}`,
      `SERVICE_API_URL=${config.BACKEND_URL}`,
      'DATABASE_URL=postgres://<user>:<password>@<host>:5432/<database>',
    ]) logToStderr(`  ${line}`);
    return { clientId: app.clientId, clientSecret: app.clientSecret, serverUrl: authUrl, frontendUrl: config.FRONTEND_URL, apiUrl: config.BACKEND_URL };
  } finally {
    await db.close();
  }
});
