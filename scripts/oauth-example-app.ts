// A third-party app, end to end, for users to see the OAuth flow work:
//   npm run oauth:example -- --client-id pca_... --client-secret pcs_... [--port 8976]
// Register the app first in the dashboard with the Redirect URL http://127.0.0.1:<port>/callback.
// --port 0 takes any free port; the address it listens on is printed (tests read it from there).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    port: { type: 'string', default: '8976' },
    frontend: { type: 'string', default: process.env.SERVICE_FRONTEND_URL ?? 'http://localhost:5000' },
    api: { type: 'string', default: process.env.SERVICE_API_URL ?? 'http://localhost:5000/api' },
  },
  strict: true,
});
const clientId = values['client-id'];
const clientSecret = values['client-secret'];
if (clientId === undefined || clientSecret === undefined) {
  process.stderr.write('usage: npm run oauth:example -- --client-id pca_... --client-secret pcs_... [--port 8976] [--frontend URL] [--api URL]\n');
  process.exit(2);
}

const say = (line: string): void => { process.stderr.write(`${line}\n`); };
/** Known once listening: with --port 0 the system picks the port. */
let redirectUri = '';
// The state ties the answer to this run: a callback carrying another state is not ours.
const state = randomBytes(16).toString('base64url');
const authorizeUrl = new URL('/oauth/authorize', values.frontend);
authorizeUrl.search = new URLSearchParams({ client_id: clientId, response_type: 'code', state }).toString();

function sameState(received: string | null): boolean {
  if (received === null) return false;
  const a = Buffer.from(received);
  const b = Buffer.from(state);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function finish(code: string): Promise<void> {
  const tokenResponse = await fetch(`${values.api}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'authorization_code', code, client_id: clientId, client_secret: clientSecret }),
  });
  const token = await tokenResponse.json() as { access_token?: string; id?: string; error?: string; error_description?: string };
  if (!tokenResponse.ok || token.access_token === undefined) throw new Error(`token exchange failed: ${token.error ?? tokenResponse.status} ${token.error_description ?? ''}`);
  say(`got an access token for organization ${token.id ?? '?'}; calling GET /integrations with it...`);
  const integrations = await fetch(`${values.api}/public/v1/integrations`, { headers: { Authorization: token.access_token } });
  const body: unknown = await integrations.json();
  if (!integrations.ok) throw new Error(`GET /integrations answered ${integrations.status}: ${JSON.stringify(body)}`);
  process.stdout.write(`${JSON.stringify({ organizationId: token.id, integrations: body })}\n`);
}

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', redirectUri);
  if (url.pathname !== '/callback') { response.writeHead(404).end(); return; }
  const done = (status: number, message: string, exitCode: number): void => {
    response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${message}\nYou can close this window.\n`);
    say(message);
    server.close();
    process.exitCode = exitCode;
  };
  if (!sameState(url.searchParams.get('state'))) { done(400, 'refused: the state does not match the one this app sent', 1); return; }
  const error = url.searchParams.get('error');
  if (error !== null) { done(200, `the user did not authorize the app (${error})`, 1); return; }
  const code = url.searchParams.get('code');
  if (code === null) { done(400, 'refused: no code in the callback', 1); return; }
  finish(code).then(() => { done(200, 'authorized: the app called the API with its token', 0); }, (failure: unknown) => {
    done(502, failure instanceof Error ? failure.message : String(failure), 1);
  });
});
server.listen(Number(values.port), '127.0.0.1', () => {
  redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  say(`listening on ${redirectUri} (register it as the app's Redirect URL)`);
  say('open this address in a browser and authorize the app:');
  process.stdout.write(`${authorizeUrl.toString()}\n`);
});
