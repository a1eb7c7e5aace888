import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../browser/dashboard-client.ts';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import {
  authServerEnvironment, registerAuthServerApp, startAuthServer, useAuthServerCallback, type RunningAuthServer,
} from '../support/auth-server-harness.ts';
import { api, connectMastodonThroughApi } from '../support/fixtures.ts';
import { createTestDatabase } from '../support/postgres.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

/**
 * After every flow that handles a secret (sign-up password, API keys before and after rotation,
 * a platform token, an OAuth client secret before and after rotation, authorization codes,
 * access tokens, a device-flow login), none of them may appear in clear in MongoDB, in the auth
 * server's PostgreSQL, or in any log line, with logging at its most verbose.
 */
describe('no secret, code or token in clear at rest or in the logs', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let database: { url: string; drop(): Promise<void> };
  let auth: RunningAuthServer;
  const simulator = new MastodonSimulator();
  const secrets: string[] = [];
  const remember = (value: string | null | undefined): string => {
    if (value === null || value === undefined || value === '') throw new Error('expected a secret to remember');
    secrets.push(value);
    return value;
  };
  const grab = (html: string, id: string): string => remember(new RegExp(`id="${id}"[^>]*>([^<]+)<`).exec(html)?.[1]);

  beforeAll(async () => {
    await simulator.start();
    ctx = await createTestContext({ LOG_LEVEL: 'trace' });
    stack = await startStack(ctx);
    database = await createTestDatabase();
    const registered = await registerAuthServerApp(ctx);
    remember(registered.clientSecret);
    const logEverything = { LOG_LEVEL: 'trace' };
    auth = await startAuthServer(authServerEnvironment(registered, stack.baseUrl, database.url, logEverything));
    await useAuthServerCallback(ctx, registered.app, auth.publicUrl);
  });
  afterAll(async () => {
    await auth.process.stop();
    await stack.close();
    await ctx.cleanup();
    await database.drop();
    await simulator.stop();
  });

  it('runs every secret-handling flow, then finds none of the secrets anywhere', async () => {
    // Sign up; reveal and rotate the API key; use both.
    const owner = new DashboardClient(stack.baseUrl);
    const password = remember('a rather long password 123');
    await owner.get('/signup');
    expect((await owner.post('/signup', { email: 'owner@example.com', password, organization: 'Secret Keepers' })).status).toBe(302);
    await owner.get('/settings');
    const firstKey = grab((await owner.post('/settings/api-key/reveal', {})).html, 'api-key');
    const secondKey = grab((await owner.post('/settings/api-key/rotate', {})).html, 'api-key');
    expect((await api(stack.baseUrl, firstKey, '/api/public/v1/is-connected')).status).toBe(401);
    expect((await api(stack.baseUrl, secondKey, '/api/public/v1/is-connected')).status).toBe(200);

    // A platform token from connecting a channel through OAuth, then a post published with it.
    const organizationId = (await ctx.db.organizations.findOne({ name: 'Secret Keepers' }).lean())?._id.toString() ?? '';
    const channelId = await connectMastodonThroughApi(stack.baseUrl, secondKey, simulator, 'keeper');
    remember(ctx.secrets.open((await ctx.db.channels.findById(channelId).lean())?.tokenSealed ?? ''));
    const instanceClient = await ctx.db.serverClients.findOne({ provider: 'mastodon' }).lean();
    remember(ctx.secrets.open(instanceClient?.clientSecretSealed ?? ''));
    await api(stack.baseUrl, secondKey, '/api/public/v1/posts', { method: 'POST', body: { type: 'now', posts: [{ integration: { id: channelId }, value: [{ content: 'kept secret' }] }] } });
    await waitFor(() => simulator.statuses.find((status) => status.text === 'kept secret'), { what: 'the post' });

    // An OAuth app: register, authorize, exchange, rotate the secret, use the token.
    await owner.get('/oauth-app');
    const registeredPage = await owner.post('/oauth-app', { name: 'Secret app', description: '', picture_url: '', redirect_url: 'http://127.0.0.1:9/cb' });
    const appPage = registeredPage.status === 302 || registeredPage.status === 303 ? await owner.get(registeredPage.location ?? '/oauth-app') : registeredPage;
    const clientId = /id="client-id"[^>]*>([^<]+)</.exec(appPage.html)?.[1] ?? '';
    const clientSecret = grab(appPage.html, 'client-secret');
    const consent = await owner.get(`/oauth/authorize?client_id=${clientId}&response_type=code&state=s1`);
    const approved = await owner.post('/oauth/authorize', { client_id: clientId, response_type: 'code', state: 's1', organization_id: organizationId, decision: 'approve' });
    expect(consent.status).toBe(200);
    const code = remember(new URL(approved.location ?? '').searchParams.get('code'));
    const token = await api(stack.baseUrl, null, '/api/oauth/token', { method: 'POST', body: { grant_type: 'authorization_code', code, client_id: clientId, client_secret: clientSecret } });
    const accessToken = remember((token.body as { access_token: string }).access_token);
    expect((await api(stack.baseUrl, accessToken, '/api/public/v1/integrations')).status).toBe(200);
    await owner.get('/oauth-app');
    grab((await owner.post('/oauth-app/rotate-secret', { app_id: /name="app_id" value="([^"]+)"/.exec(appPage.html)?.[1] ?? '' })).html, 'client-secret');

    // A device-flow login through the auth server.
    const start = await (await fetch(`${auth.url}/device/code`, { method: 'POST' })).json() as { device_code: string; user_code: string };
    const deviceCode = remember(start.device_code);
    const verifier = new DashboardClient(auth.url);
    const verifyPage = await verifier.get(`/device/verify?code=${start.user_code}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(verifyPage.html)?.[1] ?? '';
    const confirmed = { user_code: start.user_code, csrf, confirm: 'yes' };
    const toConsent = await verifier.post('/device/verify', confirmed, { csrf: null });
    const consentUrl = new URL(toConsent.location ?? '');
    remember(consentUrl.searchParams.get('state'));
    await owner.get(`${consentUrl.pathname}${consentUrl.search}`);
    const deviceApproved = await owner.post('/oauth/authorize', {
      client_id: consentUrl.searchParams.get('client_id') ?? '', response_type: 'code', state: consentUrl.searchParams.get('state') ?? '', organization_id: organizationId, decision: 'approve',
    });
    const callback = new URL(deviceApproved.location ?? '');
    remember(callback.searchParams.get('code'));
    expect((await fetch(callback)).status).toBe(200);
    const delivered = await (await fetch(`${auth.url}/device/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ device_code: deviceCode }) })).json() as { access_token: string };
    remember(delivered.access_token);

    // Now look everywhere.
    const collections = await ctx.db.connection.db?.collections() ?? [];
    const mongo = JSON.stringify(await Promise.all(collections.map((collection) => collection.find({}).toArray())));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const postgres = JSON.stringify((await client.query('SELECT * FROM device_requests')).rows);
    await client.end();
    const logs = `${ctx.logLines.join('')}\n${auth.process.output()}`;
    expect(ctx.logLines.length).toBeGreaterThan(20);
    for (const secret of secrets) {
      expect(mongo.includes(secret), `MongoDB holds ${secret.slice(0, 8)}…`).toBe(false);
      expect(postgres.includes(secret), `PostgreSQL holds ${secret.slice(0, 8)}…`).toBe(false);
      expect(logs.includes(secret), `the logs hold ${secret.slice(0, 8)}…`).toBe(false);
    }
    expect(secrets.length).toBeGreaterThanOrEqual(12);
  });
});
