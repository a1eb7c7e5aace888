import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../shared/domain/accounts/accounts.ts';
import { approve } from '../shared/domain/oauth/authorization.ts';
import type { StoredApp } from '../shared/domain/oauth/oauth-apps.ts';
import { freePort, registerAuthServerApp, startAuthServer, type RunningAuthServer } from '../test/support/auth-server-harness.ts';
import { createTestDatabase } from '../test/support/postgres.ts';
import { runScript } from '../test/support/processes.ts';
import { startStack, type RunningStack } from '../test/support/stack.ts';
import { createTestContext, type TestContext } from '../test/support/test-context.ts';

interface Browser { cookies: Map<string, string> }

/** A minimal cookie-keeping client for the verify form. */
async function call(browser: Browser, url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<{ status: number; text: string; location: string | null }> {
  const headers: Record<string, string> = { Cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
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
  return { status: response.status, text: await response.text(), location: response.headers.get('location') };
}

const csrfOf = (html: string): string => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

describe('device-flow auth server', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let database: { url: string; drop(): Promise<void> };
  let app: StoredApp;
  let env: NodeJS.ProcessEnv;
  let first: RunningAuthServer;
  let second: RunningAuthServer;
  let user: Awaited<ReturnType<typeof signUp>>;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    database = await createTestDatabase();
    const [portA, portB] = [await freePort(), await freePort()];
    const registered = await registerAuthServerApp(ctx, `http://127.0.0.1:${portA}`);
    app = registered.app;
    env = {
      PATH: process.env.PATH, DATABASE_URL: database.url, SERVICE_OAUTH_CLIENT_ID: app.clientId, SERVICE_OAUTH_CLIENT_SECRET: registered.clientSecret,
      SERVICE_FRONTEND_URL: stack.baseUrl, SERVICE_API_URL: `${stack.baseUrl}/api`, LOG_LEVEL: 'info',
    };
    // Two instances start at the same moment on an empty database: both must create-or-find the schema.
    [first, second] = await Promise.all([startAuthServer(env, portA), startAuthServer({ ...env, SERVER_URL: `http://127.0.0.1:${portA}` }, portB)]);
    user = await signUp(ctx.db, ctx.secrets, { email: 'cli-user@example.com', password: 'correct horse battery', organizationName: 'CLI Org' });
  });
  afterAll(async () => {
    await Promise.all([first.process.stop(), second.process.stop()]);
    await stack.close();
    await ctx.cleanup();
    await database.drop();
  });

  const post = async (server: RunningAuthServer, path: string, body: unknown) => {
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() as Record<string, unknown> };
  };
  const startLogin = async (server: RunningAuthServer) => (await post(server, '/device/code', {})).body as { device_code: string; user_code: string; verification_uri: string; expires_in: number; interval: number };

  /** The browser part: the verify form, then the service's consent (approved in-process here; the browser test drives the real page). */
  async function verify(server: RunningAuthServer, userCode: string): Promise<string> {
    const browser: Browser = { cookies: new Map() };
    const page = await call(browser, `${server.url}/device/verify?code=${encodeURIComponent(userCode)}`);
    const submitted = await call(browser, `${server.url}/device/verify`, { method: 'POST', form: { user_code: userCode, csrf: csrfOf(page.text) } });
    expect(submitted.status).toBe(302);
    const consent = new URL(submitted.location ?? '');
    expect(`${consent.origin}${consent.pathname}`).toBe(`${stack.baseUrl}/oauth/authorize`);
    expect(consent.searchParams.get('client_id')).toBe(app.clientId);
    expect(consent.searchParams.get('response_type')).toBe('code');
    return consent.searchParams.get('state') ?? '';
  }
  const consentCode = () => approve(ctx.db, ctx.secrets, { app, user: user.user, organizationId: user.organizationId, now: new Date() });

  it('stops at start-up naming every required variable that is missing', async () => {
    const result = await runScript('auth-server/main.ts', [], { PATH: process.env.PATH, SERVICE_OAUTH_CLIENT_ID: 'wrong' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/DATABASE_URL: required/);
    expect(result.stderr).toMatch(/SERVICE_OAUTH_CLIENT_ID: must be the OAuth app's client id/);
    expect(result.stderr).toMatch(/SERVICE_OAUTH_CLIENT_SECRET: required/);
  });

  it('answers /health after checking the database', async () => {
    expect(await (await fetch(`${first.url}/health`)).json()).toEqual({ status: 'ok' });
  });

  it('starts a device flow on an empty body with the contract\'s fields', async () => {
    const response = await fetch(`${first.url}/device/code`, { method: 'POST' });
    expect(response.status).toBe(200);
    const body = await response.json() as Record<string, unknown>;
    expect(body).toEqual({ device_code: expect.any(String) as string, user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/) as string, verification_uri: `${first.url}/device/verify`, expires_in: 900, interval: 5 });
  });

  it('one login, each step on a different instance: code → verify → callback → token exactly once', async () => {
    const login = await startLogin(first);
    expect(await post(second, '/device/token', { device_code: login.device_code })).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });
    const state = await verify(second, login.user_code.toLowerCase().replace('-', ''));
    const done = await fetch(`${first.url}/device/callback?${new URLSearchParams({ code: await consentCode(), state }).toString()}`);
    expect(done.status).toBe(200);
    expect(await done.text()).toMatch(/You are logged in/);
    const token = await post(second, '/device/token', { device_code: login.device_code });
    expect(token).toMatchObject({ status: 200, body: { access_token: expect.stringMatching(/^pos_/) as string, api_url: `${stack.baseUrl}/api`, organization_id: user.organizationId } });
    const integrations = await fetch(`${stack.baseUrl}/api/public/v1/integrations`, { headers: { Authorization: String(token.body.access_token) } });
    expect(integrations.status).toBe(200);
    expect(await post(first, '/device/token', { device_code: login.device_code })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('keeps no token, device code or state in clear in its table', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const rows = (await client.query('SELECT * FROM device_requests')).rows as Record<string, unknown>[];
      expect(JSON.stringify(rows)).not.toMatch(/pos_/);
      expect(rows.every((row) => row.access_token_sealed === null || (typeof row.access_token_sealed === 'string' && row.access_token_sealed.startsWith('v1.')))).toBe(true);
    } finally {
      await client.end();
    }
  });

  it('marks a denied request and answers access_denied', async () => {
    const login = await startLogin(first);
    const state = await verify(first, login.user_code);
    const denied = await fetch(`${second.url}/device/callback?error=access_denied&state=${encodeURIComponent(state)}`);
    expect(await denied.text()).toMatch(/denied/i);
    expect(await post(first, '/device/token', { device_code: login.device_code })).toMatchObject({ status: 400, body: { error: 'access_denied' } });
  });

  it('answers expired_token once the request has expired, and the sweep deletes it', async () => {
    const login = await startLogin(first);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('UPDATE device_requests SET expires_at = now() - interval \'1 second\' WHERE user_code = $1', [login.user_code.replace('-', '')]);
    } finally {
      await client.end();
    }
    expect(await post(second, '/device/token', { device_code: login.device_code })).toMatchObject({ status: 400, body: { error: 'expired_token' } });
    const browser: Browser = { cookies: new Map() };
    const page = await call(browser, `${first.url}/device/verify`);
    const again = await call(browser, `${first.url}/device/verify`, { method: 'POST', form: { user_code: login.user_code, csrf: csrfOf(page.text) } });
    expect(again.status).toBe(400);
    expect(again.text).toMatch(/wrong or has expired/);
  });

  it('refuses a callback with an unknown state and a verify without the form\'s token', async () => {
    expect((await fetch(`${first.url}/device/callback?code=x&state=forged`)).status).toBe(400);
    const login = await startLogin(first);
    const forged = await call({ cookies: new Map() }, `${first.url}/device/verify`, { method: 'POST', form: { user_code: login.user_code, csrf: 'forged' } });
    expect(forged.status).toBe(403);
  });

  it('throttles guessing of user codes per address', async () => {
    const browser: Browser = { cookies: new Map() };
    const page = await call(browser, `${first.url}/device/verify`);
    const csrf = csrfOf(page.text);
    const statuses: number[] = [];
    // Earlier tests spent a few failures already; 12 more attempts must hit the limit of 10.
    for (let attempt = 0; attempt < 12; attempt += 1) statuses.push((await call(browser, `${attempt % 2 === 0 ? first.url : second.url}/device/verify`, { method: 'POST', form: { user_code: 'BBBB-BBBB', csrf } })).status);
    expect(statuses).toContain(429);
    expect(statuses.at(-1)).toBe(429);
  });
});
