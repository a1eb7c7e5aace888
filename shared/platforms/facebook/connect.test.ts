import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  startFacebookSimulator, type FacebookSimulator,
} from '../../../test/simulators/facebook/facebook-simulator.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { freePort } from '../../../test/support/free-port.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext, PlatformApp } from '../kit/platform-connect.ts';
import { PlatformApps } from '../platform-apps.ts';
import { facebookConnect } from './connect.ts';
import { graphGet } from '../meta/meta-graph.ts';
import { facebookModule } from './module.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';

const day = 24 * 3600 * 1000;
const redirectUri = 'https://sps.example/channels/callback/facebook';

function contextFor(app: PlatformApp): ConnectContext {
  return { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
}


describe('Facebook connect against the simulated Facebook Login and Graph API', () => {
  let facebook: FacebookSimulator;
  let context: ConnectContext;
  let clock: number;

  beforeAll(async () => {
    facebook = await startFacebookSimulator();
    context = contextFor(facebook.app);
    facebook.addPages('ada', [
      {
        id: '1001', name: 'Ada Bakery', username: 'adabakery', pictureUrl: 'https://scontent.example/1001.jpg',
        tasks: ['ANALYZE', 'ADVERTISE', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'],
      },
      {
        id: '1002', name: 'Ada Books', pictureUrl: 'https://scontent.example/1002.jpg',
        tasks: ['ANALYZE', 'CREATE_CONTENT'],
      },
      // An analyst cannot publish: the Page is not offered.
      { id: '1003', name: 'Friend Cafe', pictureUrl: 'https://scontent.example/1003.jpg', tasks: ['ANALYZE'] },
    ]);
  });
  afterAll(async () => { await facebook.close(); });
  beforeEach(() => {
    clock = Date.now();
    facebook.authority.now = () => clock;
    facebook.authority.consentingUser = 'ada';
  });

  it('asks Facebook Login for the Page permissions, comma-separated, with the app id and no PKCE', async () => {
    const { authorizeUrl } = await authorizeAndConnect(facebookConnect, context, redirectUri);

    expect(authorizeUrl.pathname).toBe('/v26.0/dialog/oauth');
    expect(Object.fromEntries(authorizeUrl.searchParams)).toEqual({
      response_type: 'code',
      client_id: facebook.clientId,
      redirect_uri: redirectUri,
      scope: 'pages_show_list,pages_manage_posts,pages_read_engagement,publish_video,pages_manage_engagement,'
        + 'read_insights',
      state: 'state-1',
    });
  });

  it('offers each Page the user may publish to, with its own Page token, to pick from', async () => {
    const { tokens, authorized } = await authorizeAndConnect(facebookConnect, context, redirectUri);

    expect(authorized.pick).toBe(true);
    expect(authorized.accounts.map(({ accessToken: _token, ...account }) => account)).toEqual([
      {
        accountId: '1001', name: 'Ada Bakery', username: 'adabakery', picture: 'https://scontent.example/1001.jpg',
        instanceUrl: null, refreshToken: null, expiresAt: null,
      },
      {
        accountId: '1002', name: 'Ada Books', username: null, picture: 'https://scontent.example/1002.jpg',
        instanceUrl: null, refreshToken: null, expiresAt: null,
      },
    ]);
    const [bakery, books] = authorized.accounts;
    expect(bakery?.accessToken).toMatch(/^page-/);
    expect(books?.accessToken).not.toBe(bakery?.accessToken);

    // The code's short-lived token was traded for a long-lived one, and the Pages read with that.
    const exchange = facebook.received.findLast((request) => request.query.get('grant_type') === 'fb_exchange_token');
    expect(exchange?.method).toBe('GET');
    expect(exchange?.path).toBe('/v26.0/oauth/access_token');
    expect(exchange?.query.get('client_id')).toBe(facebook.clientId);
    expect(exchange?.query.get('client_secret')).toBe(facebook.clientSecret);
    expect(exchange?.query.get('fb_exchange_token')).toBe(tokens.accessToken);
    const listing = facebook.received.findLast((request) => request.path === '/v26.0/me/accounts');
    expect(listing?.query.get('access_token')).toMatch(/^long-/);
    expect(listing?.query.get('fields')).toBe('id,name,username,access_token,tasks,picture.type(large)');
  });

  it('gets Page tokens that still work long after the user token would have expired', async () => {
    const { authorized } = await authorizeAndConnect(facebookConnect, context, redirectUri);
    const pageToken = authorized.accounts[0]?.accessToken ?? '';
    clock += 90 * day;

    const page = await graphGet({
      provider: 'facebook',
      url: `${facebook.url}/v26.0/1001`,
      query: { fields: 'id,name', access_token: pageToken },
      timeoutMs: 2_000,
    });

    expect(page).toEqual({ id: '1001', name: 'Ada Bakery' });
  });

  it('calls a Page token dead once the user lost the Page role', async () => {
    facebook.addPages('grace', [
      {
        id: '2001', name: 'Grace Labs', pictureUrl: 'https://scontent.example/2001.jpg',
        tasks: ['MANAGE', 'CREATE_CONTENT'],
      },
    ]);
    facebook.authority.consentingUser = 'grace';
    const { authorized } = await authorizeAndConnect(facebookConnect, context, redirectUri);
    facebook.removePage('grace', '2001');

    const error = await platformFailure(graphGet({
      provider: 'facebook',
      url: `${facebook.url}/v26.0/2001`,
      query: { access_token: authorized.accounts[0]?.accessToken ?? '' },
      timeoutMs: 2_000,
    }));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Error validating access token: The user is not an administrator of the page.');
  });

  it('offers nothing when the user runs no Page', async () => {
    facebook.authority.consentingUser = 'nobody';

    const { authorized } = await authorizeAndConnect(facebookConnect, context, redirectUri);

    expect(authorized).toEqual({ pick: true, accounts: [] });
  });

  it('shows Facebook’s refusal of a wrong app secret', async () => {
    const wrongSecret = contextFor({ ...facebook.app, clientSecret: 'wrong' });

    const error = await platformFailure(authorizeAndConnect(facebookConnect, wrongSecret, redirectUri));

    expect(error.kind).toBe('permanent');
    expect(error.httpStatus).toBe(400);
    expect(error.message).toBe('Error validating client secret.');
  });

  it('refuses an authorization code that was already used', async () => {
    await authorizeAndConnect(facebookConnect, context, redirectUri);
    const redeemed = facebook.received.findLast(
      (request) => request.method === 'POST' && request.path === '/v26.0/oauth/access_token',
    );
    expect(redeemed).toBeDefined();
    const code = new URLSearchParams(redeemed?.text).get('code') ?? '';
    const client = { clientId: facebook.clientId, clientSecret: facebook.clientSecret };

    const error = await platformFailure(exchangeAuthorizationCode(
      facebookConnect.provider(facebook.app), client, { code, redirectUri, codeVerifier: null }, { timeoutMs: 2_000 },
    ));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('This authorization code has been used.');
  });

  it('has nothing to renew: Page tokens do not expire and no refresh token exists', () => {
    const env = { FACEBOOK_CLIENT_ID: 'id', FACEBOOK_CLIENT_SECRET: 'secret' };
    const apps = new PlatformApps(env, { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, [facebookModule]);

    expect(facebookConnect.provider(facebook.app).refreshable).toBe(false);
    expect(apps.refresherFor('facebook')).toBeUndefined();
  });

  it('reads Pages only with a live user token: the code’s token is refused once its hour has passed', async () => {
    const { tokens } = await authorizeAndConnect(facebookConnect, context, redirectUri);
    clock += 2 * 3600 * 1000;

    const error = await platformFailure(facebookConnect.accounts(tokens, context));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Invalid OAuth access token - Cannot parse access token');
  });

  it('calls an unreachable Facebook a passing failure', async () => {
    const closed = `http://127.0.0.1:${String(await freePort())}`;
    const tokens = { accessToken: 'short', refreshToken: null, expiresAt: null };

    const unreachable = contextFor({ ...facebook.app, apiUrl: closed, tokenUrl: closed });

    const error = await platformFailure(facebookConnect.accounts(tokens, unreachable));

    expect(error.kind).toBe('retryable');
    expect(error.message).toBe('could not reach facebook');
  });

  it('takes its production hosts from the module', () => {
    expect(facebookModule.urls).toEqual({
      apiUrl: 'https://graph.facebook.com', authUrl: 'https://www.facebook.com', tokenUrl: 'https://graph.facebook.com',
    });
    expect(facebookModule.connect).toBe(facebookConnect);
  });
});
