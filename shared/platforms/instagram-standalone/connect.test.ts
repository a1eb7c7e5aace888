import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  startInstagramStandaloneSimulator,
  type InstagramStandaloneSimulator,
} from '../../../test/simulators/instagram-standalone/instagram-standalone-simulator.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { freePort } from '../../../test/support/free-port.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { graphGet } from '../meta/meta-graph.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext, PlatformApp } from '../kit/platform-connect.ts';
import { PlatformApps } from '../platform-apps.ts';
import { instagramStandaloneConnect, readInstagramLoginTokens } from './connect.ts';
import { instagramStandaloneModule } from './module.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';

const day = 24 * 3600 * 1000;
const redirectUri = 'https://sps.example/channels/callback/instagram-standalone';
const ada = {
  userId: '17841400000000001',
  appScopedId: '7000000000000001',
  username: 'ada.bakes',
  name: 'Ada Bakery',
  profilePictureUrl: 'https://cdninstagram.example/ada.jpg',
};

function contextFor(app: PlatformApp): ConnectContext {
  return { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
}

/** Close to `expected`, allowing for the time the test itself takes. */
function expectAbout(actual: Date | null, expected: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual?.getTime() ?? 0) - expected)).toBeLessThan(60_000);
}

describe('Instagram Login connect against the simulated Instagram hosts', () => {
  let instagram: InstagramStandaloneSimulator;
  let context: ConnectContext;
  let clock: number;

  beforeAll(async () => {
    instagram = await startInstagramStandaloneSimulator();
    instagram.addUser('ada', ada);
    context = contextFor(instagram.app);
  });
  afterAll(async () => {
    await instagram.close();
  });
  beforeEach(() => {
    clock = Date.now();
    instagram.authority.now = () => clock;
    instagram.authority.consentingUser = 'ada';
  });

  it('asks Business Login for Instagram for the instagram_business scopes, comma-separated, without PKCE', async () => {
    const { authorizeUrl } = await authorizeAndConnect(instagramStandaloneConnect, context, redirectUri);

    expect(authorizeUrl.pathname).toBe('/oauth/authorize');
    expect(Object.fromEntries(authorizeUrl.searchParams)).toEqual({
      response_type: 'code',
      client_id: instagram.clientId,
      redirect_uri: redirectUri,
      scope: 'instagram_business_basic,instagram_business_content_publish,instagram_business_manage_comments',
      state: 'state-1',
    });
  });

  it('trades the one-hour token for a 60-day one, kept as its own refresh token, and reads the account', async () => {
    const { tokens, authorized } = await authorizeAndConnect(instagramStandaloneConnect, context, redirectUri);

    expect(authorized.pick).toBe(false);
    expect(authorized.accounts).toHaveLength(1);
    const [account] = authorized.accounts;
    expect(account).toMatchObject({
      accountId: '17841400000000001',
      name: 'Ada Bakery',
      username: 'ada.bakes',
      picture: 'https://cdninstagram.example/ada.jpg',
      instanceUrl: null,
    });
    expect(account?.accessToken).toMatch(/^long-/);
    expect(account?.refreshToken).toBe(account?.accessToken);
    expectAbout(account?.expiresAt ?? null, Date.now() + 60 * day);

    const code = instagram.received.findLast((request) => request.path === '/oauth/access_token');
    expect(Object.fromEntries(new URLSearchParams(code?.text))).toMatchObject({
      client_id: instagram.clientId,
      client_secret: instagram.clientSecret,
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
    });
    const exchange = instagram.received.findLast((request) => request.path === '/access_token');
    expect(Object.fromEntries(exchange?.query ?? [])).toEqual({
      grant_type: 'ig_exchange_token',
      client_secret: instagram.clientSecret,
      access_token: tokens.accessToken,
    });
    const profile = instagram.received.findLast((request) => request.path === '/v26.0/me');
    expect(profile?.query.get('fields')).toBe('user_id,username,name,profile_picture_url');
    expect(profile?.query.get('access_token')).toBe(account?.accessToken);
  });

  it('reads the code exchange’s answer whether Instagram wraps it in data or not', async () => {
    const flat = await startInstagramStandaloneSimulator({ tokenAnswer: 'flat' });
    try {
      flat.addUser('ada', ada);
      flat.authority.consentingUser = 'ada';

      const { authorized } = await authorizeAndConnect(instagramStandaloneConnect, contextFor(flat.app), redirectUri);

      expect(authorized.accounts[0]?.accountId).toBe('17841400000000001');
    } finally {
      await flat.close();
    }
    const now = new Date();
    const token = { access_token: 'IGAA', user_id: '7000000000000001', permissions: 'instagram_business_basic' };
    const read = { accessToken: 'IGAA', refreshToken: null, expiresAt: null };
    expect(readInstagramLoginTokens({ data: [token] }, now)).toEqual(read);
    expect(readInstagramLoginTokens(token, now)).toEqual(read);
    expect(readInstagramLoginTokens({ data: [] }, now)).toBeNull();
  });

  it('refuses a wrong app secret at the code exchange', async () => {
    const wrongSecret = contextFor({ ...instagram.app, clientSecret: 'wrong' });

    const error = await platformFailure(authorizeAndConnect(instagramStandaloneConnect, wrongSecret, redirectUri));

    expect(error.kind).toBe('permanent');
    expect(error.httpStatus).toBe(400);
    // api.instagram.com words it as {error_type, code, error_message}: the user reads Instagram's words.
    expect(error.message).toBe('Error validating client secret.');
  });

  it('refuses an authorization code that was already used', async () => {
    await authorizeAndConnect(instagramStandaloneConnect, context, redirectUri);
    const redeemed = instagram.received.findLast((request) => request.path === '/oauth/access_token');
    const code = new URLSearchParams(redeemed?.text).get('code') ?? '';
    const client = { clientId: instagram.clientId, clientSecret: instagram.clientSecret };
    const provider = instagramStandaloneConnect.provider(instagram.app);

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
    expect(error.httpStatus).toBe(400);
  });

  it('renews a day-old long-lived token with ig_refresh_token, through the platform apps', async () => {
    const { authorized } = await authorizeAndConnect(instagramStandaloneConnect, context, redirectUri);
    const held = authorized.accounts[0]?.refreshToken ?? '';
    clock += 2 * day;
    const env = {
      INSTAGRAM_STANDALONE_CLIENT_ID: instagram.clientId,
      INSTAGRAM_STANDALONE_CLIENT_SECRET: instagram.clientSecret,
      INSTAGRAM_STANDALONE_API_URL: instagram.url,
      INSTAGRAM_STANDALONE_AUTH_URL: instagram.url,
      INSTAGRAM_STANDALONE_TOKEN_URL: instagram.url,
    };
    const options = { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
    const apps = new PlatformApps(env, options, [instagramStandaloneModule]);
    const refresher = apps.refresherFor('instagram-standalone');
    expect(refresher).toBeDefined();

    const renewed = await refresher?.({
      provider: 'instagram-standalone',
      refreshToken: held,
      instanceUrl: null,
      now: new Date(clock),
    });

    expect(renewed?.accessToken).toMatch(/^long-/);
    expect(renewed?.accessToken).not.toBe(held);
    expect(renewed?.refreshToken).toBe(renewed?.accessToken);
    expectAbout(renewed?.expiresAt ?? null, clock + 60 * day);
    const call = instagram.received.at(-1);
    expect(call?.path).toBe('/refresh_access_token');
    expect(Object.fromEntries(call?.query ?? [])).toEqual({ grant_type: 'ig_refresh_token', access_token: held });
  });

  it('calls an unknown refresh token disconnected', async () => {
    const error = await platformFailure(
      instagramStandaloneConnect.refresh?.('never-issued', context) ?? Promise.resolve(),
    );

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Invalid OAuth access token - Cannot parse access token');
  });

  it('calls a token disconnected once its 60 days passed unrenewed, for refreshing and for reading alike', async () => {
    const { authorized } = await authorizeAndConnect(instagramStandaloneConnect, context, redirectUri);
    const held = authorized.accounts[0]?.accessToken ?? '';
    clock += 61 * day;

    const refused = await platformFailure(instagramStandaloneConnect.refresh?.(held, context) ?? Promise.resolve());
    const read = await platformFailure(
      graphGet({
        provider: 'instagram-standalone',
        url: `${instagram.url}/v26.0/me`,
        query: { fields: 'user_id', access_token: held },
        timeoutMs: 2_000,
      }),
    );

    for (const error of [refused, read]) {
      expect(error.kind).toBe('disconnected');
      expect(error.message).toMatch(/^Error validating access token: Session has expired on /);
    }
  });

  it('cannot finish connecting with a code token older than its hour', async () => {
    const { tokens } = await authorizeAndConnect(instagramStandaloneConnect, context, redirectUri);
    clock += 2 * 3600 * 1000;

    const error = await platformFailure(instagramStandaloneConnect.accounts(tokens, context));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Invalid OAuth access token - Cannot parse access token');
  });

  it('calls unreachable Instagram hosts a passing failure', async () => {
    const closed = `http://127.0.0.1:${String(await freePort())}`;
    const unreachable = contextFor({ ...instagram.app, apiUrl: closed });

    const error = await platformFailure(
      instagramStandaloneConnect.refresh?.('any', unreachable) ?? Promise.resolve(),
    );

    expect(error.kind).toBe('retryable');
    expect(error.message).toBe('could not reach instagram-standalone');
  });

  it('takes the three Instagram hosts from the module', () => {
    expect(instagramStandaloneModule.urls).toEqual({
      apiUrl: 'https://graph.instagram.com',
      authUrl: 'https://www.instagram.com',
      tokenUrl: 'https://api.instagram.com',
    });
    expect(instagramStandaloneModule.connect).toBe(instagramStandaloneConnect);
  });
});
