// What the auth server's tests send it and read back: a browser's form posts, the CLI's JSON calls,
// and SQL on its database.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** An auth server as these helpers reach it. */
interface AuthServer { url: string }

export interface Browser { cookies: Map<string, string> }
export interface Answer { status: number; text: string; location: string | null; headers: Headers }
export interface CallOptions { method?: string; form?: Record<string, string>; forwardedFor?: string }

/** A minimal cookie-keeping client for the verify form; `forwardedFor` is what a proxy (or a forger) sends. */
export async function call(browser: Browser, url: string, init: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {
    Cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
  };
  if (init.forwardedFor !== undefined) headers['X-Forwarded-For'] = init.forwardedFor;
  let body: string | undefined;
  if (init.form !== undefined) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
  for (const cookie of response.headers.getSetCookie()) {
    const [pair = ''] = cookie.split(';');
    const [name = '', value = ''] = pair.split('=');
    browser.cookies.set(name, value);
  }
  const text = await response.text();
  return { status: response.status, text, location: response.headers.get('location'), headers: response.headers };
}

export const csrfOf = (html: string): string => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** A different, made-up left-most X-Forwarded-For entry on every call: what a forger rotates. */
export const forged = (): string => `203.0.113.${String(randomBytes(1)[0])}`;

export interface PostAnswer { status: number; headers: Headers; body: Record<string, unknown> }

export async function post(
  server: AuthServer, path: string, body: unknown, forwardedFor?: string,
): Promise<PostAnswer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (forwardedFor !== undefined) headers['X-Forwarded-For'] = forwardedFor;
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: await response.json() as Record<string, unknown> };
}

export interface DeviceLogin {
  device_code: string; user_code: string; verification_uri: string; expires_in: number; interval: number;
}
export const startLogin = async (server: AuthServer): Promise<DeviceLogin> =>
  (await post(server, '/device/code', {})).body as unknown as DeviceLogin;
export const poll = (server: AuthServer, login: DeviceLogin) =>
  post(server, '/device/token', { device_code: login.device_code });
/** What a refused poll looks like. */
export const refusal = (error: string, more: Record<string, unknown> = {}) =>
  ({ status: 400, body: { error, ...more } });
export const storedCode = (login: DeviceLogin): string => login.user_code.replace('-', '');

/** Runs one statement against an auth server's database. */
export async function sql<Row extends pg.QueryResultRow>(
  url: string, text: string, values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Expires a request at once (and forgets its last poll), in the database at `url`. */
export const expire = (login: DeviceLogin, url: string) => sql(url,
  'UPDATE device_requests SET expires_at = now() - interval \'1 second\', last_polled_at = NULL WHERE user_code = $1',
  [storedCode(login)]);
