import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authorizeAndConnect, refreshWith } from '../../../test/simulators/kit/oauth-dance.ts';
import { formBody } from '../../../test/simulators/kit/simulator-server.ts';
import {
  startTikTokSimulator, type RunningTikTokSimulator,
} from '../../../test/simulators/tiktok/tiktok-simulator.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { tiktokConnect } from './connect.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';

const redirectUri = 'https://sps.example/channels/callback/tiktok';


function lastTokenForm(tiktok: RunningTikTokSimulator): URLSearchParams {
  const request = tiktok.received.filter((received) => received.path === '/v2/oauth/token/').at(-1);
  expect(request).toBeDefined();
  return request === undefined ? new URLSearchParams() : formBody(request);
}

describe('TikTok connect against the simulator', () => {
  let tiktok: RunningTikTokSimulator;
  let context: ConnectContext;

  beforeAll(async () => {
    tiktok = await startTikTokSimulator({
      'user-1': {
        openId: '-000AbCdEf', unionId: 'union-1', displayName: 'Ada', username: 'ada.films',
        avatarUrl: 'https://p16-sign.tiktokcdn.com/ada.jpeg',
      },
    });
    const { clientId, clientSecret, url } = tiktok;
    const app = { clientId, clientSecret, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null };
    context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
  });
  afterAll(async () => { await tiktok.close(); });
  beforeEach(() => { tiktok.authority.now = Date.now; });

  it('sends the client key and comma-separated scopes, and the secret in the token form', async () => {
    const { authorizeUrl } = await authorizeAndConnect(tiktokConnect, context, redirectUri);

    expect(authorizeUrl.pathname).toBe('/v2/auth/authorize/');
    expect(authorizeUrl.searchParams.get('client_key')).toBe(tiktok.clientId);
    expect(authorizeUrl.searchParams.has('client_id')).toBe(false);
    expect(authorizeUrl.searchParams.get('scope'))
      .toBe('user.info.basic,user.info.profile,user.info.stats,video.list,video.publish,video.upload');
    expect(authorizeUrl.searchParams.has('code_challenge')).toBe(false);
    const form = lastTokenForm(tiktok);
    expect(form.get('client_key')).toBe(tiktok.clientId);
    expect(form.get('client_secret')).toBe(tiktok.clientSecret);
  });

  it('reads the profile of the open id the tokens act for', async () => {
    const { tokens, authorized } = await authorizeAndConnect(tiktokConnect, context, redirectUri);

    expect(tokens.expiresAt?.getTime()).toBeGreaterThan(Date.now() + 86_000_000);
    expect(authorized).toEqual({
      pick: false,
      accounts: [{
        accountId: '-000AbCdEf',
        name: 'Ada',
        username: 'ada.films',
        picture: 'https://p16-sign.tiktokcdn.com/ada.jpeg',
        instanceUrl: null,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        expiresAt: tokens.expiresAt,
      }],
    });
    expect(tiktok.received.at(-1)?.query.get('fields')).toBe('open_id,union_id,avatar_url,display_name,username');
  });

  it('shows TikTok’s refusal of a wrong client secret, though it comes with HTTP 200', async () => {
    const wrong = { ...context, app: { ...context.app, clientSecret: 'not-the-secret' } };
    const error = await platformFailure(authorizeAndConnect(tiktokConnect, wrong, redirectUri));

    expect(error.message).toBe('Client authentication failed (invalid_client)');
  });

  it('refuses a code used once already', async () => {
    await authorizeAndConnect(tiktokConnect, context, redirectUri);
    const form = lastTokenForm(tiktok);
    const client = { clientId: tiktok.clientId, clientSecret: tiktok.clientSecret };
    const again = { code: form.get('code') ?? '', redirectUri, codeVerifier: null };
    const provider = tiktokConnect.provider(context.app);
    const error = await platformFailure(exchangeAuthorizationCode(provider, client, again, { timeoutMs: 2_000 }));

    expect(error.message).toBe('The authorization code is invalid or expired (invalid_grant)');
  });

  it('renews the tokens, and the rotated refresh token cannot be spent twice', async () => {
    const { tokens } = await authorizeAndConnect(tiktokConnect, context, redirectUri);
    const renewed = await refreshWith(tiktokConnect, context, tokens.refreshToken ?? '');

    expect(renewed.accessToken).not.toBe(tokens.accessToken);
    expect(renewed.refreshToken).not.toBe(tokens.refreshToken);
    const reused = await platformFailure(refreshWith(tiktokConnect, context, tokens.refreshToken ?? ''));
    expect(reused.kind).toBe('disconnected');
    expect((await refreshWith(tiktokConnect, context, renewed.refreshToken ?? '')).accessToken).toMatch(/^at-/);
  });

  it('calls an unknown refresh token disconnected', async () => {
    const error = await platformFailure(refreshWith(tiktokConnect, context, 'rt-unknown'));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('The refresh token is invalid or was revoked (invalid_grant)');
  });

  it('is refused by the API once the access token’s day has passed', async () => {
    const { tokens } = await authorizeAndConnect(tiktokConnect, context, redirectUri);
    tiktok.authority.now = () => Date.now() + 86_400_000;
    const error = await platformFailure(tiktokConnect.accounts(tokens, context));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('The access token is invalid or not found in the request. (access_token_invalid)');
  });
});
