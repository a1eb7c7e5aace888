import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { startThreadsSimulator, type ThreadsSimulator } from '../../../test/simulators/threads/threads-simulator.ts';
import { freePort } from '../../../test/support/free-port.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { graphGet } from '../meta/meta-graph.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext, PlatformApp } from '../kit/platform-connect.ts';
import { PlatformApps } from '../platform-apps.ts';
import { threadsConnect } from './connect.ts';
import { threadsModule } from './module.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';

const day = 24 * 3600 * 1000;
const redirectUri = 'https://sps.example/channels/callback/threads';

function contextFor(app: PlatformApp): ConnectContext {
  return { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
}

/** Close to `expected`, allowing for the time the test itself takes. */
function expectAbout(actual: Date | null, expected: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual?.getTime() ?? 0) - expected)).toBeLessThan(60_000);
}

describe('Threads connect against the simulated Threads API', () => {
  let threads: ThreadsSimulator;
  let context: ConnectContext;
  let clock: number;

  beforeAll(async () => {
    threads = await startThreadsSimulator();
    threads.addUser({
      id: '25000000000000001',
      username: 'ada',
      name: 'Ada Lovelace',
      profilePictureUrl: 'https://cdn.threads.example/ada.jpg',
      biography: 'Engines',
    });
    context = contextFor(threads.app);
  });
  afterAll(async () => {
    await threads.close();
  });
  beforeEach(() => {
    clock = Date.now();
    threads.authority.now = () => clock;
    threads.authority.consentingUser = '25000000000000001';
  });

  it('asks for the publishing, reply, insight and delete scopes, comma-separated, the app id, no PKCE', async () => {
    const { authorizeUrl } = await authorizeAndConnect(threadsConnect, context, redirectUri);

    expect(authorizeUrl.pathname).toBe('/oauth/authorize');
    expect(Object.fromEntries(authorizeUrl.searchParams)).toEqual({
      response_type: 'code',
      client_id: threads.clientId,
      redirect_uri: redirectUri,
      scope: [
        'threads_basic', 'threads_content_publish', 'threads_manage_replies', 'threads_read_replies',
        'threads_manage_insights', 'threads_delete',
      ].join(','),
      state: 'state-1',
    });
  });

  it('trades the one-hour token for a 60-day one, kept as its own refresh token, and reads the profile', async () => {
    const { tokens, authorized } = await authorizeAndConnect(threadsConnect, context, redirectUri);

    expect(authorized.pick).toBe(false);
    expect(authorized.accounts).toHaveLength(1);
    const [account] = authorized.accounts;
    expect(account).toMatchObject({
      accountId: '25000000000000001',
      name: 'Ada Lovelace',
      username: 'ada',
      picture: 'https://cdn.threads.example/ada.jpg',
      instanceUrl: null,
    });
    expect(account?.accessToken).toMatch(/^long-/);
    expect(account?.refreshToken).toBe(account?.accessToken);
    expectAbout(account?.expiresAt ?? null, Date.now() + 5183944 * 1000);

    const exchange = threads.received.findLast((request) => request.path === '/access_token');
    expect(Object.fromEntries(exchange?.query ?? [])).toEqual({
      grant_type: 'th_exchange_token',
      client_secret: threads.clientSecret,
      access_token: tokens.accessToken,
    });
    const profile = threads.received.findLast((request) => request.path === '/v1.0/me');
    expect(profile?.query.get('fields')).toBe('id,username,name,threads_profile_picture_url');
    expect(profile?.query.get('access_token')).toBe(account?.accessToken);
  });

  it('shows Threads’ refusal of a wrong app secret', async () => {
    const wrongSecret = contextFor({ ...threads.app, clientSecret: 'wrong' });

    const error = await platformFailure(authorizeAndConnect(threadsConnect, wrongSecret, redirectUri));

    expect(error.kind).toBe('permanent');
    expect(error.httpStatus).toBe(400);
    expect(error.message).toBe('Error validating client secret.');
  });

  it('refuses an authorization code that was already used', async () => {
    await authorizeAndConnect(threadsConnect, context, redirectUri);
    const redeemed = threads.received.findLast((request) => request.path === '/oauth/access_token');
    const code = new URLSearchParams(redeemed?.text).get('code') ?? '';
    const client = { clientId: threads.clientId, clientSecret: threads.clientSecret };
    const provider = threadsConnect.provider(threads.app);

    const error = await platformFailure(
      exchangeAuthorizationCode(
        provider,
        client,
        { code, redirectUri, codeVerifier: null },
        {
          timeoutMs: 2_000,
        },
      ),
    );

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('This authorization code has been used.');
  });

  it('renews a day-old long-lived token with th_refresh_token, through the platform apps', async () => {
    const { authorized } = await authorizeAndConnect(threadsConnect, context, redirectUri);
    const held = authorized.accounts[0]?.refreshToken ?? '';
    clock += 30 * day;
    const env = {
      THREADS_CLIENT_ID: threads.clientId,
      THREADS_CLIENT_SECRET: threads.clientSecret,
      THREADS_API_URL: threads.url,
      THREADS_AUTH_URL: threads.url,
      THREADS_TOKEN_URL: threads.url,
    };
    const apps = new PlatformApps(env, { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, [threadsModule]);
    const refresher = apps.refresherFor('threads');
    expect(refresher).toBeDefined();

    const renewed = await refresher?.({
      provider: 'threads',
      refreshToken: held,
      instanceUrl: null,
      now: new Date(clock),
    });

    expect(renewed?.accessToken).toMatch(/^long-/);
    expect(renewed?.accessToken).not.toBe(held);
    expect(renewed?.refreshToken).toBe(renewed?.accessToken);
    expectAbout(renewed?.expiresAt ?? null, clock + 5183944 * 1000);
    const call = threads.received.at(-1);
    expect(call?.path).toBe('/refresh_access_token');
    expect(Object.fromEntries(call?.query ?? [])).toEqual({ grant_type: 'th_refresh_token', access_token: held });
    // Renewed 30 days in, the token outlives the first one's 60 days.
    clock += 45 * day;
    const profile = await graphGet({
      provider: 'threads',
      url: `${threads.url}/v1.0/me`,
      query: { fields: 'id', access_token: renewed?.accessToken ?? '' },
      timeoutMs: 2_000,
    });
    expect(profile).toEqual({ id: '25000000000000001' });
  });

  it('calls an unknown refresh token disconnected', async () => {
    const error = await platformFailure(threadsConnect.refresh?.('never-issued', context) ?? Promise.resolve());

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Invalid OAuth access token - Cannot parse access token');
  });

  it('calls a token disconnected once its 60 days passed unrenewed, for refreshing and for reading alike', async () => {
    const { authorized } = await authorizeAndConnect(threadsConnect, context, redirectUri);
    const held = authorized.accounts[0]?.accessToken ?? '';
    clock += 61 * day;

    const refused = await platformFailure(threadsConnect.refresh?.(held, context) ?? Promise.resolve());
    const read = await platformFailure(
      graphGet({
        provider: 'threads',
        url: `${threads.url}/v1.0/me`,
        query: { fields: 'id', access_token: held },
        timeoutMs: 2_000,
      }),
    );

    for (const error of [refused, read]) {
      expect(error.kind).toBe('disconnected');
      expect(error.message).toMatch(/^Error validating access token: Session has expired on /);
    }
  });

  it('cannot finish connecting with a code token older than its hour', async () => {
    const { tokens } = await authorizeAndConnect(threadsConnect, context, redirectUri);
    clock += 2 * 3600 * 1000;

    const error = await platformFailure(threadsConnect.accounts(tokens, context));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Invalid OAuth access token - Cannot parse access token');
  });

  it('calls an unreachable Threads API a passing failure', async () => {
    const closed = `http://127.0.0.1:${String(await freePort())}`;
    const tokens = { accessToken: 'short', refreshToken: null, expiresAt: null };

    const error = await platformFailure(
      threadsConnect.accounts(tokens, contextFor({ ...threads.app, apiUrl: closed })),
    );

    expect(error.kind).toBe('retryable');
    expect(error.message).toBe('could not reach threads');
  });

  it('takes the Threads hosts from the module', () => {
    expect(threadsModule.urls).toEqual({
      apiUrl: 'https://graph.threads.net',
      authUrl: 'https://threads.com',
      tokenUrl: 'https://graph.threads.net',
    });
    expect(threadsModule.connect).toBe(threadsConnect);
  });
});
