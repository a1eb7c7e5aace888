import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import {
  startInstagramSimulator, type InstagramSimulator,
} from '../../../test/simulators/instagram/instagram-simulator.ts';
import { freePort } from '../../../test/support/free-port.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { graphGet } from '../meta/meta-graph.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext, PlatformApp } from '../kit/platform-connect.ts';
import { PlatformApps } from '../platform-apps.ts';
import { instagramConnect } from './connect.ts';
import { instagramModule } from './module.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';

const day = 24 * 3600 * 1000;
const redirectUri = 'https://sps.example/channels/callback/instagram';

function contextFor(app: PlatformApp): ConnectContext {
  return { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
}


describe('Instagram (Facebook Login) connect against the simulated Graph API', () => {
  let instagram: InstagramSimulator;
  let context: ConnectContext;
  let clock: number;

  beforeAll(async () => {
    instagram = await startInstagramSimulator();
    context = contextFor(instagram.app);
    const picture = (name: string) => `https://cdninstagram.example/${name}.jpg`;
    instagram.linkAccount('ada', { id: '1001', name: 'Ada Bakery' }, {
      id: '17841400000000001', username: 'ada.bakes', name: 'Ada Bakery', profilePictureUrl: picture('ada'),
    });
    instagram.linkAccount('ada', { id: '1002', name: 'Ada Books' }, {
      id: '17841400000000002', username: 'ada.reads', name: 'Ada Books', profilePictureUrl: picture('books'),
    });
    // A Page with no Instagram account and one the user may only analyze are not offered.
    instagram.addPages('ada', [{ id: '1003', name: 'Ada Cafe', pictureUrl: picture('cafe'), tasks: ['MANAGE'] }]);
    instagram.linkAccount('ada', { id: '1004', name: 'Friend Shop', tasks: ['ANALYZE'] }, {
      id: '17841400000000004', username: 'friend.shop', name: 'Friend Shop', profilePictureUrl: picture('friend'),
    });
  });
  afterAll(async () => { await instagram.close(); });
  beforeEach(() => {
    clock = Date.now();
    instagram.authority.now = () => clock;
    instagram.authority.consentingUser = 'ada';
  });

  it('asks Facebook Login for the Instagram and Page permissions, comma-separated, without PKCE', async () => {
    const { authorizeUrl } = await authorizeAndConnect(instagramConnect, context, redirectUri);

    expect(authorizeUrl.pathname).toBe('/v26.0/dialog/oauth');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(instagram.clientId);
    expect(authorizeUrl.searchParams.get('scope')).toBe(
      'instagram_basic,instagram_content_publish,instagram_manage_comments,pages_show_list,pages_read_engagement,'
      + 'business_management',
    );
    expect(authorizeUrl.searchParams.has('code_challenge')).toBe(false);
  });

  it('offers each Instagram account linked to a Page the user may publish to, with that Page’s token', async () => {
    const { authorized } = await authorizeAndConnect(instagramConnect, context, redirectUri);

    expect(authorized.pick).toBe(true);
    expect(authorized.accounts.map(({ accessToken: _token, ...account }) => account)).toEqual([
      {
        accountId: '17841400000000001', name: 'Ada Bakery', username: 'ada.bakes',
        picture: 'https://cdninstagram.example/ada.jpg', instanceUrl: null, refreshToken: null, expiresAt: null,
      },
      {
        accountId: '17841400000000002', name: 'Ada Books', username: 'ada.reads',
        picture: 'https://cdninstagram.example/books.jpg', instanceUrl: null, refreshToken: null, expiresAt: null,
      },
    ]);
    const listing = instagram.received.findLast((request) => request.path === '/v26.0/me/accounts');
    expect(listing?.query.get('access_token')).toMatch(/^long-/);
    expect(listing?.query.get('fields')).toBe(
      'id,name,access_token,tasks,instagram_business_account{id,username,name,profile_picture_url}',
    );
  });

  it('keeps a token that reads the Instagram account long after a user token would have expired', async () => {
    const { authorized } = await authorizeAndConnect(instagramConnect, context, redirectUri);
    const [bakery] = authorized.accounts;
    clock += 90 * day;

    const account = await graphGet({
      provider: 'instagram',
      url: `${instagram.url}/v26.0/${bakery?.accountId ?? ''}`,
      query: { fields: 'id,username', access_token: bakery?.accessToken ?? '' },
      timeoutMs: 2_000,
    });

    expect(account).toEqual({ id: '17841400000000001', username: 'ada.bakes' });
  });

  it('shows Facebook’s refusal of a wrong app secret', async () => {
    const wrongSecret = contextFor({ ...instagram.app, clientSecret: 'wrong' });

    const error = await platformFailure(authorizeAndConnect(instagramConnect, wrongSecret, redirectUri));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Error validating client secret.');
  });

  it('refuses an authorization code that was already used', async () => {
    await authorizeAndConnect(instagramConnect, context, redirectUri);
    const redeemed = instagram.received.findLast(
      (request) => request.method === 'POST' && request.path === '/v26.0/oauth/access_token',
    );
    const code = new URLSearchParams(redeemed?.text).get('code') ?? '';
    const client = { clientId: instagram.clientId, clientSecret: instagram.clientSecret };

    const error = await platformFailure(exchangeAuthorizationCode(
      instagramConnect.provider(instagram.app), client, { code, redirectUri, codeVerifier: null }, { timeoutMs: 2_000 },
    ));

    expect(error.message).toBe('This authorization code has been used.');
  });

  it('has nothing to renew: Page tokens do not expire and no refresh token exists', () => {
    const env = { INSTAGRAM_CLIENT_ID: 'id', INSTAGRAM_CLIENT_SECRET: 'secret' };
    const apps = new PlatformApps(env, { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, [instagramModule]);

    expect(instagramConnect.provider(instagram.app).refreshable).toBe(false);
    expect(apps.refresherFor('instagram')).toBeUndefined();
  });

  it('refuses the long-lived user token itself once its 60 days have passed', async () => {
    await authorizeAndConnect(instagramConnect, context, redirectUri);
    const listing = instagram.received.findLast((request) => request.path === '/v26.0/me/accounts');
    const longLived = listing?.query.get('access_token') ?? '';
    clock += 61 * day;

    const error = await platformFailure(graphGet({
      provider: 'instagram',
      url: `${instagram.url}/v26.0/me/accounts`,
      query: { access_token: longLived },
      timeoutMs: 2_000,
    }));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toMatch(/^Error validating access token: Session has expired on /);
  });

  it('calls an unreachable Graph API a passing failure', async () => {
    const closed = `http://127.0.0.1:${String(await freePort())}`;
    const tokens = { accessToken: 'short', refreshToken: null, expiresAt: null };

    const unreachable = contextFor({ ...instagram.app, apiUrl: closed, tokenUrl: closed });

    const error = await platformFailure(instagramConnect.accounts(tokens, unreachable));

    expect(error.kind).toBe('retryable');
  });

  it('takes Facebook’s production hosts from the module', () => {
    expect(instagramModule.urls).toEqual({
      apiUrl: 'https://graph.facebook.com', authUrl: 'https://www.facebook.com', tokenUrl: 'https://graph.facebook.com',
    });
    expect(instagramModule.connect).toBe(instagramConnect);
  });
});
