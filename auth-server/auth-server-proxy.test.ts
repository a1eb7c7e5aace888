import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authServerEnvironment, registerAuthServerApp, startAuthServer, type RunningAuthServer,
} from '../test/support/auth-server-harness.ts';
import { createTestDatabase } from '../test/support/postgres.ts';
import { startStack, waitFor, type RunningStack } from '../test/support/stack.ts';
import { createTestContext, type TestContext } from '../test/support/test-context.ts';
import { maxLiveRequests } from './device-requests.ts';
import {
  call, csrfOf, expire, forged, poll, post, refusal, sql, startLogin, type Browser,
} from './test/device-flow-client.ts';

/**
 * The device-flow auth server behind one proxy (TRUST_PROXY_HOPS=1): its per-address throttles read
 * the right-most X-Forwarded-For entry, its bound on live requests, and its sweep (fast here, so the
 * test can watch it work). The server without a proxy, over two instances: auth-server.test.ts.
 */
describe('device-flow auth server behind one proxy (TRUST_PROXY_HOPS=1)', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let ownDatabase: { url: string; drop(): Promise<void> };
  let proxied: RunningAuthServer;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    ownDatabase = await createTestDatabase();
    const registered = await registerAuthServerApp(ctx);
    proxied = await startAuthServer(authServerEnvironment(registered, stack.baseUrl, ownDatabase.url, {
      TRUST_PROXY_HOPS: '1', SWEEP_EVERY_MS: '200',
    }));
  });
  afterAll(async () => {
    await proxied.process.stop();
    await stack.close();
    await ctx.cleanup();
    await ownDatabase.drop();
  });

  it('throttles user-code guesses by the right-most X-Forwarded-For entry: two clients count apart', async () => {
    const browser: Browser = { cookies: new Map() };
    const csrf = csrfOf((await call(browser, `${proxied.url}/device/verify`)).text);
    const guess = (client: string) => call(browser, `${proxied.url}/device/verify`, {
      method: 'POST', form: { user_code: 'CCCC-CCCC', csrf, confirm: 'yes' }, forwardedFor: `${forged()}, ${client}`,
    });
    for (let attempt = 1; attempt <= 10; attempt += 1) expect((await guess('198.51.100.10')).status).toBe(400);
    const blocked = await guess('198.51.100.10');
    expect(blocked.status).toBe(429);
    expect(blocked.text).toMatch(/Too many wrong codes from your address/);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    const neighbour = await guess('198.51.100.11');
    expect(neighbour.status).toBe(400);
    expect(neighbour.text).toMatch(/wrong or has expired/);
  });

  it('evaluates no more wrong codes than the limit when guesses come at once; then the right one waits', async () => {
    const browser: Browser = { cookies: new Map() };
    const csrf = csrfOf((await call(browser, `${proxied.url}/device/verify`)).text);
    const guess = (code: string) => call(browser, `${proxied.url}/device/verify`, {
      method: 'POST', form: { user_code: code, csrf, confirm: 'yes' }, forwardedFor: `${forged()}, 198.51.100.50`,
    });
    const answers = await Promise.all(Array.from({ length: 30 }, () => guess('DDDD-DDDD')));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 400)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    const right = await startLogin(proxied);
    expect((await guess(right.user_code)).status).toBe(429);
  });

  it('counts a right code as no wrong one', async () => {
    const browser: Browser = { cookies: new Map() };
    const csrf = csrfOf((await call(browser, `${proxied.url}/device/verify`)).text);
    const guess = (code: string) => call(browser, `${proxied.url}/device/verify`, {
      method: 'POST', form: { user_code: code, csrf, confirm: 'yes' }, forwardedFor: `${forged()}, 198.51.100.51`,
    });
    for (let attempt = 1; attempt <= 9; attempt += 1) expect((await guess('FFFF-FFFF')).status).toBe(400);
    expect((await guess((await startLogin(proxied)).user_code)).status).toBe(302);
    expect((await guess('FFFF-FFFF')).status).toBe(400);
    expect((await guess('FFFF-FFFF')).status).toBe(429);
  });

  it('throttles starting logins per client address, with Retry-After', async () => {
    const client = '198.51.100.20';
    for (let started = 1; started <= 30; started += 1) {
      expect((await post(proxied, '/device/code', {}, `${forged()}, ${client}`)).status).toBe(200);
    }
    const refused = await post(proxied, '/device/code', {}, `${forged()}, ${client}`);
    expect(refused).toMatchObject({
      status: 429,
      body: { error: 'rate_limited', error_description: expect.stringMatching(/too many logins started/) as string },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await post(proxied, '/device/code', {}, '198.51.100.21')).status).toBe(200);
  });

  it('refuses new logins with 503 while the live requests are at their bound', async () => {
    const liveCount = 'SELECT count(*) FROM device_requests WHERE expires_at > now()';
    const counted = await sql<{ count: string }>(ownDatabase.url, liveCount);
    const live = Number(counted[0]?.count);
    await sql(ownDatabase.url, `
      INSERT INTO device_requests (device_code_digest, user_code, expires_at)
      SELECT 'flood-' || n, 'FLOOD' || n, now() + interval '10 minutes' FROM generate_series(1, $1::int) AS n`,
    [maxLiveRequests - live]);
    try {
      const refused = await post(proxied, '/device/code', {}, '198.51.100.30');
      expect(refused).toMatchObject({ status: 503, body: { error: 'temporarily_unavailable' } });
      expect(refused.headers.get('retry-after')).toBe('60');
    } finally {
      await sql(ownDatabase.url, 'DELETE FROM device_requests WHERE device_code_digest LIKE \'flood-%\'');
    }
    expect((await post(proxied, '/device/code', {}, '198.51.100.30')).status).toBe(200);
  });

  it('sweeps tokens of expired requests, the rows 5 minutes on, old throttle windows; nothing live', async () => {
    await sql(ownDatabase.url, `
      INSERT INTO device_requests (device_code_digest, user_code, expires_at, access_token_sealed, status) VALUES
      ('sweep-long-expired', 'SWEEPOLD', now() - interval '6 minutes', 'v1.sealed', 'delivered'),
      ('sweep-just-expired', 'SWEEPJST', now() - interval '1 second', 'v1.sealed', 'delivered'),
      ('sweep-live', 'SWEEPNEW', now() + interval '10 minutes', 'v1.sealed', 'delivered')`);
    await sql(ownDatabase.url, `INSERT INTO address_throttle (purpose, address, window_start, hits) VALUES
      ('verify_failure', 'sweep-old', now() - interval '16 minutes', 3),
      ('device_code', 'sweep-old', now() - interval '16 minutes', 1),
      ('verify_failure', 'sweep-fresh', now(), 1)`);
    const late = await startLogin(proxied);
    await expire(late, ownDatabase.url);
    const count = async (query: string) => Number((await sql<{ count: string }>(ownDatabase.url, query))[0]?.count);
    await waitFor(async () => {
      const left = await count(`SELECT
        (SELECT count(*) FROM device_requests WHERE user_code = 'SWEEPOLD')
        + (SELECT count(*) FROM device_requests WHERE user_code = 'SWEEPJST' AND access_token_sealed IS NOT NULL)
        + (SELECT count(*) FROM address_throttle WHERE address = 'sweep-old') AS count`);
      return left === 0 ? true : undefined;
    }, { what: 'the sweep to delete the expired rows' });
    // Kept for a late poll, which hears expired_token rather than invalid_grant, but without its token.
    expect(await count('SELECT count(*) FROM device_requests WHERE user_code = \'SWEEPJST\'')).toBe(1);
    const liveWithToken = `SELECT count(*) FROM device_requests
      WHERE user_code = 'SWEEPNEW' AND access_token_sealed IS NOT NULL`;
    expect(await count(liveWithToken)).toBe(1);
    expect(await count('SELECT count(*) FROM address_throttle WHERE address = \'sweep-fresh\'')).toBe(1);
    // The CLI that polls after the sweep learns why it failed.
    expect(await poll(proxied, late)).toMatchObject(refusal('expired_token'));
  });
});
