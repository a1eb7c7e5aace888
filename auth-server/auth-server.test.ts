import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../shared/domain/accounts/accounts.ts';
import { approve } from '../shared/domain/oauth/authorization.ts';
import type { StoredApp } from '../shared/domain/oauth/oauth-apps.ts';
import {
  authServerEnvironment, registerAuthServerApp, startAuthServer, useAuthServerCallback, type RunningAuthServer,
} from '../test/support/auth-server-harness.ts';
import { createTestDatabase } from '../test/support/postgres.ts';
import { runScript } from '../test/support/processes.ts';
import { startStack, type RunningStack } from '../test/support/stack.ts';
import { createTestContext, type TestContext } from '../test/support/test-context.ts';
import { loadAuthServerConfig } from './config.ts';
import {
  call, csrfOf, expire, forged, poll, refusal, sql, startLogin, storedCode, type Browser, type DeviceLogin,
} from './test/device-flow-client.ts';

/**
 * The device-flow auth server's HTTP behaviour over two instances on one database, as a load
 * balancer would spread a login over them, without a proxy in front (TRUST_PROXY_HOPS=0). Behind
 * one proxy, its throttles, bound and sweep: auth-server-proxy.test.ts.
 */
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
    const registered = await registerAuthServerApp(ctx);
    app = registered.app;
    env = authServerEnvironment(registered, stack.baseUrl, database.url);
    // Two instances start at the same moment on an empty database: both must create-or-find the schema.
    [first, second] = await Promise.all([startAuthServer(env), startAuthServer(env)]);
    await useAuthServerCallback(ctx, app, first.publicUrl);
    const account = { email: 'cli-user@example.com', password: 'correct horse battery', organizationName: 'CLI Org' };
    user = await signUp(ctx.db, ctx.secrets, account);
  });
  afterAll(async () => {
    await Promise.all([first.process.stop(), second.process.stop()]);
    await stack.close();
    await ctx.cleanup();
    await database.drop();
  });

  /** The browser part: the verify form, then the service's consent (approved in-process; e2e drives the page). */
  async function verify(server: RunningAuthServer, userCode: string): Promise<string> {
    const browser: Browser = { cookies: new Map() };
    const page = await call(browser, `${server.url}/device/verify?code=${encodeURIComponent(userCode)}`);
    const form = { user_code: userCode, csrf: csrfOf(page.text), confirm: 'yes' };
    const submitted = await call(browser, `${server.url}/device/verify`, { method: 'POST', form });
    expect(submitted.status).toBe(302);
    const consent = new URL(submitted.location ?? '');
    expect(`${consent.origin}${consent.pathname}`).toBe(`${stack.baseUrl}/oauth/authorize`);
    expect(consent.searchParams.get('client_id')).toBe(app.clientId);
    expect(consent.searchParams.get('response_type')).toBe('code');
    return consent.searchParams.get('state') ?? '';
  }
  const consentCode = () => approve(ctx.db, ctx.secrets, {
    app, user: user.user, organizationId: user.organizationId, now: new Date(),
  });
  const callback = async (server: RunningAuthServer, state: string) =>
    fetch(`${server.url}/device/callback?${new URLSearchParams({ code: await consentCode(), state }).toString()}`);

  /** Verify, consent and callback: the request is complete and its token waits for the next poll. */
  async function approveLogin(login: DeviceLogin): Promise<void> {
    const done = await callback(first, await verify(second, login.user_code));
    expect(await done.text()).toMatch(/You are logged in/);
  }

  /** As if the last poll had been `secondsAgo` earlier: lets a test poll again without waiting the interval. */
  const lastPolledAgo = (login: DeviceLogin, secondsAgo: number) => sql(database.url,
    'UPDATE device_requests SET last_polled_at = now() - make_interval(secs => $2) WHERE user_code = $1',
    [storedCode(login), secondsAgo]);
  interface RequestRow { status: string; poll_interval: number; access_token_sealed: string | null; lives_for: number }
  const requestRow = async (login: DeviceLogin) => (await sql<RequestRow>(database.url, `
    SELECT status, poll_interval, access_token_sealed, extract(epoch FROM expires_at - now())::float AS lives_for
    FROM device_requests WHERE user_code = $1`, [storedCode(login)]))[0];

  it('stops at start-up naming every required variable that is missing or wrong', async () => {
    const wrong = { PATH: process.env.PATH, SERVICE_OAUTH_CLIENT_ID: 'wrong', TRUST_PROXY_HOPS: 'two' };
    const result = await runScript('auth-server/main.ts', [], wrong);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/DATABASE_URL: required/);
    expect(result.stderr).toMatch(/SERVICE_OAUTH_CLIENT_ID: must be the OAuth app's client id/);
    expect(result.stderr).toMatch(/SERVICE_OAUTH_CLIENT_SECRET: required/);
    expect(result.stderr).toMatch(/TRUST_PROXY_HOPS: /);
  });

  it('listens on the port it was given by the system and reports it', () => {
    expect(first.port).toBeGreaterThan(0);
    expect(first.port).not.toBe(second.port);
    expect(first.publicUrl).toBe(`http://localhost:${first.port}`);
  });

  it('answers /health after checking the database', async () => {
    expect(await (await fetch(`${first.url}/health`)).json()).toEqual({ status: 'ok' });
  });

  it('starts a device flow on an empty body with the contract\'s fields', async () => {
    const response = await fetch(`${first.url}/device/code`, { method: 'POST' });
    expect(response.status).toBe(200);
    const body = await response.json() as Record<string, unknown>;
    expect(body).toEqual({
      device_code: expect.any(String) as string, user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/) as string,
      verification_uri: `${first.publicUrl}/device/verify`, expires_in: 900, interval: 5,
    });
  });

  it('one login, each step on a different instance: code → verify → callback → token', async () => {
    const login = await startLogin(first);
    expect(await poll(second, login)).toMatchObject(refusal('authorization_pending'));
    const done = await callback(first, await verify(second, login.user_code.toLowerCase().replace('-', '')));
    expect(done.status).toBe(200);
    expect(await done.text()).toMatch(/You are logged in/);
    await lastPolledAgo(login, 5);
    const token = await poll(second, login);
    expect(token).toMatchObject({
      status: 200,
      body: {
        access_token: expect.stringMatching(/^pos_/) as string,
        api_url: `${stack.baseUrl}/api`,
        organization_id: user.organizationId,
      },
    });
    const headers = { Authorization: String(token.body.access_token) };
    const integrations = await fetch(`${stack.baseUrl}/api/public/v1/integrations`, { headers });
    expect(integrations.status).toBe(200);
  });

  it('hands the same token again to a poll with the same device code for a minute, then never again', async () => {
    const login = await startLogin(first);
    await approveLogin(login);
    const delivered = await poll(first, login);
    expect(delivered).toMatchObject({ status: 200, body: { access_token: expect.stringMatching(/^pos_/) as string } });
    const row = await requestRow(login);
    expect(row?.status).toBe('delivered');
    // The row now lives for the redelivery window only, not the rest of its 15 minutes.
    expect(row?.lives_for).toBeGreaterThan(50);
    expect(row?.lives_for).toBeLessThanOrEqual(60);

    // The CLI lost the answer and polls again, on another instance.
    await lastPolledAgo(login, 5);
    const again = await poll(second, login);
    expect(again).toEqual({ status: 200, headers: expect.any(Headers) as Headers, body: delivered.body });
    // Another device code gets nothing.
    const stranger = await startLogin(second);
    expect(await poll(second, stranger)).toMatchObject(refusal('authorization_pending'));

    // The window is over: no token, and the sealed copy is gone from the row.
    await expire(login, database.url);
    expect(await poll(first, login)).toMatchObject(refusal('invalid_grant'));
    expect((await requestRow(login))?.access_token_sealed).toBeNull();
  });

  it('gives new logins the interval DEVICE_POLL_INTERVAL_SECONDS names, and holds polls to it', async () => {
    const brisk = await startAuthServer({ ...env, DEVICE_POLL_INTERVAL_SECONDS: '2' });
    try {
      const login = await startLogin(brisk);
      expect(login.interval).toBe(2);
      expect(await poll(brisk, login)).toMatchObject(refusal('authorization_pending'));
      // Too soon for the default 5 seconds, on time for 2: the row keeps the interval its login was given.
      await lastPolledAgo(login, 2);
      expect(await poll(first, login)).toMatchObject(refusal('authorization_pending'));
      expect(await poll(first, login)).toMatchObject(refusal('slow_down', { interval: 7 }));
    } finally {
      await brisk.process.stop();
    }
    expect(() => loadAuthServerConfig({ ...env, DEVICE_POLL_INTERVAL_SECONDS: '1' }))
      .toThrow(/DEVICE_POLL_INTERVAL_SECONDS/);
  });

  it('answers slow_down to polls sooner than the interval, adding 5 seconds each time (RFC 8628 3.5)', async () => {
    const login = await startLogin(first);
    expect(await poll(first, login)).toMatchObject(refusal('authorization_pending'));
    expect(await poll(second, login)).toMatchObject(refusal('slow_down', { interval: 10 }));
    expect(await poll(first, login)).toMatchObject(refusal('slow_down', { interval: 15 }));
    expect((await requestRow(login))?.poll_interval).toBe(15);
    // 12 seconds is still too soon for an interval of 15.
    await lastPolledAgo(login, 12);
    expect(await poll(first, login)).toMatchObject(refusal('slow_down', { interval: 20 }));
    // A poll that waited the whole interval is answered.
    await lastPolledAgo(login, 21);
    expect(await poll(second, login)).toMatchObject(refusal('authorization_pending'));
    expect((await requestRow(login))?.poll_interval).toBe(20);
  });

  it('keeps no token, device code or state in clear in its table', async () => {
    const rows = await sql<Record<string, unknown>>(database.url, 'SELECT * FROM device_requests');
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toMatch(/pos_/);
    const sealedOrNone = (value: unknown) => value === null || (typeof value === 'string' && value.startsWith('v1.'));
    expect(rows.every((row) => sealedOrNone(row.access_token_sealed))).toBe(true);
  });

  it('marks a denied request and answers access_denied', async () => {
    const login = await startLogin(first);
    const state = await verify(first, login.user_code);
    const denied = await fetch(`${second.url}/device/callback?error=access_denied&state=${encodeURIComponent(state)}`);
    expect(await denied.text()).toMatch(/denied/i);
    expect(await poll(first, login)).toMatchObject(refusal('access_denied'));
  });

  it('answers expired_token once the request has expired, and no longer accepts its user code', async () => {
    const login = await startLogin(first);
    await expire(login, database.url);
    expect(await poll(second, login)).toMatchObject(refusal('expired_token'));
    const browser: Browser = { cookies: new Map() };
    const page = await call(browser, `${first.url}/device/verify`);
    const form = { user_code: login.user_code, csrf: csrfOf(page.text), confirm: 'yes' };
    const again = await call(browser, `${first.url}/device/verify`, { method: 'POST', form });
    expect(again.status).toBe(400);
    expect(again.text).toMatch(/wrong or has expired/);
  });

  it('refuses a callback with an unknown state and a verify without the form\'s token', async () => {
    const unknown = await fetch(`${first.url}/device/callback?code=x&state=forged`);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toMatch(/unknown or has expired/);
    const login = await startLogin(first);
    const form = { user_code: login.user_code, csrf: 'forged', confirm: 'yes' };
    const forgedForm = await call({ cookies: new Map() }, `${first.url}/device/verify`, { method: 'POST', form });
    expect(forgedForm.status).toBe(403);
    expect(forgedForm.text).toMatch(/This form expired/);
  });

  // Found by the fuzzer (test/fuzz): a body its Content-Encoding does not describe was a 500.
  it('answers 400 invalid_request, not 500, to a body it cannot decode', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const response = await fetch(`${first.url}/device/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
        body: '{"device_code":"x"}',
      });
      expect(response.status, encoding).toBe(400);
      expect(await response.json(), encoding).toMatchObject({
        error: 'invalid_request',
        error_description: expect.stringMatching(/^the body could not be read/) as unknown,
      });
    }
  });

  it('forbids framing and outside resources on every page, the verify form above all', async () => {
    const browser: Browser = { cookies: new Map() };
    const form = await call(browser, `${first.url}/device/verify?code=BCDF-GHJK`);
    const refused = await call(browser, `${first.url}/device/verify`, {
      method: 'POST', form: { user_code: 'nonsense', csrf: 'forged' },
    });
    const callback = await call(browser, `${second.url}/device/callback?state=unknown`);
    const json = await call(browser, `${first.url}/health`);
    for (const answer of [form, refused, callback, json]) {
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('content-security-policy')).toMatch(/(^|; )frame-ancestors 'none'(;|$)/);
      expect(answer.headers.get('content-security-policy')).toMatch(/(^|; )default-src 'none'(;|$)/);
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect(form.text).toContain('value="BCDF-GHJK"');
  });

  it('shows a linked code as text beside the client asking, and goes on only once the user confirms it', async () => {
    const login = await startLogin(first);
    const browser: Browser = { cookies: new Map() };
    // The link the CLI opens, or one a phisher sends with their own code in it.
    const page = await call(browser, `${first.url}/device/verify?code=${encodeURIComponent(login.user_code)}`);
    expect(page.text).toMatch(new RegExp(`<p class="code"[^>]*>${login.user_code}</p>`));
    expect(page.text).toContain('SPS command-line client');
    expect(page.text).toMatch(/<input type="checkbox" name="confirm" value="yes" required>/);
    const started = () => sql<{ started: boolean }>(database.url,
      'SELECT state_digest IS NOT NULL AS started FROM device_requests WHERE user_code = $1', [storedCode(login)]);

    const form = { user_code: login.user_code, csrf: csrfOf(page.text) };
    const unconfirmed = await call(browser, `${first.url}/device/verify`, { method: 'POST', form });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.location).toBeNull();
    expect(unconfirmed.text).toMatch(/tick the box if they are the same/);
    expect(unconfirmed.text).toMatch(new RegExp(`<p class="code"[^>]*>${login.user_code}</p>`));
    expect(await started()).toEqual([{ started: false }]);

    const confirmed = await call(browser, `${first.url}/device/verify`, {
      method: 'POST', form: { ...form, confirm: 'yes' },
    });
    expect(confirmed.status).toBe(302);
    expect(new URL(confirmed.location ?? '').pathname).toBe('/oauth/authorize');
    expect(await started()).toEqual([{ started: true }]);
  });

  it('throttles guessing of user codes per address, however X-Forwarded-For rotates (TRUST_PROXY_HOPS=0)', async () => {
    const browser: Browser = { cookies: new Map() };
    const page = await call(browser, `${first.url}/device/verify`);
    const csrf = csrfOf(page.text);
    const statuses: number[] = [];
    // Earlier tests spent a few failures already; 12 more attempts must hit the limit of 10.
    for (let attempt = 0; attempt < 12; attempt += 1) {
      const server = attempt % 2 === 0 ? first : second;
      const answer = await call(browser, `${server.url}/device/verify`, {
        method: 'POST', form: { user_code: 'BBBB-BBBB', csrf, confirm: 'yes' }, forwardedFor: forged(),
      });
      statuses.push(answer.status);
    }
    expect(statuses).toContain(429);
    expect(statuses.at(-1)).toBe(429);
  });
});
