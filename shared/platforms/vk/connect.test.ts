import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { formBody } from '../../../test/simulators/kit/simulator-server.ts';
import { startVkSimulator, type RunningVkSimulator } from '../../../test/simulators/vk/vk-simulator.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { authorizationUrl, exchangeAuthorizationCode, type CodeExchange } from '../kit/oauth2.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { createPkcePair } from '../kit/pkce.ts';
import { PlatformApps } from '../platform-apps.ts';
import { vkConnect } from './connect.ts';
import { encodeVkRefreshCredential, readVkRefreshCredential } from './credential.ts';

const redirectUri = 'https://sps.example/channels/callback/vk';

describe('VK connect (VK ID) against the simulator', () => {
  let vk: RunningVkSimulator;
  let context: ConnectContext;
  let apps: PlatformApps;

  beforeAll(async () => {
    vk = await startVkSimulator({
      'user-1': {
        id: 210700286, firstName: 'Ada', lastName: 'Lovelace', screenName: 'ada',
        photo200: 'https://sun9-1.userapi.com/ada.jpg',
      },
    });
    const { clientId, clientSecret, url } = vk;
    const app = { clientId, clientSecret, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null };
    context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
    const env = {
      VK_CLIENT_ID: clientId, VK_CLIENT_SECRET: clientSecret, VK_API_URL: url, VK_AUTH_URL: url, VK_TOKEN_URL: url,
    };
    apps = new PlatformApps(env, { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) });
  });
  afterAll(async () => { await vk.close(); });
  afterEach(() => { vk.authority.now = Date.now; });

  const exchanges = () => vk.received.filter((request) => request.path === '/oauth2/auth').map(formBody);

  /** The user consents; what comes back is what the api's callback would hold. */
  async function consent() {
    const pkce = createPkcePair();
    const client = { clientId: vk.clientId, clientSecret: vk.clientSecret };
    const url = authorizationUrl(vkConnect.provider(context.app), client, {
      redirectUri, state: 'state-2', codeChallenge: pkce.challenge,
    });
    const answer = await fetch(url, { redirect: 'manual' });
    const back = new URL(answer.headers.get('location') ?? '');
    const exchange: CodeExchange = {
      code: back.searchParams.get('code') ?? '',
      redirectUri,
      codeVerifier: pkce.verifier,
      state: 'state-2',
      callback: Object.fromEntries(back.searchParams),
    };
    return { back, exchange };
  }

  const exchange = (code: CodeExchange) =>
    exchangeAuthorizationCode(vkConnect.provider(context.app), { clientId: vk.clientId, clientSecret: null }, code, {
      timeoutMs: 2_000,
    });

  it('asks VK ID for the profile, wall, photos and video with PKCE S256', async () => {
    const { authorizeUrl } = await authorizeAndConnect(vkConnect, context, redirectUri);

    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${vk.url}/authorize`);
    expect(authorizeUrl.searchParams.get('response_type')).toBe('code');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(vk.clientId);
    expect(authorizeUrl.searchParams.get('scope')).toBe('vkid.personal_info wall photos video');
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizeUrl.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
  });

  it('sends the redirect\'s device_id, the verifier and the state in the exchange, and no secret', async () => {
    const { back, exchange: code } = await consent();
    const tokens = await exchange(code);

    const sent = exchanges().at(-1);
    expect(sent?.get('device_id')).toBe(back.searchParams.get('device_id'));
    expect(sent?.get('code_verifier')).toBe(code.codeVerifier);
    expect(sent?.get('state')).toBe('state-2');
    expect(sent?.get('client_id')).toBe(vk.clientId);
    expect(sent?.has('client_secret')).toBe(false);
    // The redirect's other values stay behind: only what the provider declares is sent on.
    expect(back.searchParams.get('type')).toBe('code_v2');
    expect(sent?.has('type')).toBe(false);
    expect(readVkRefreshCredential(tokens.refreshToken ?? '').deviceId).toBe(back.searchParams.get('device_id'));
  });

  it('shows VK ID\'s refusal of an exchange without the device_id, the state or the right verifier', async () => {
    const withoutDevice = await consent();
    const noDevice = await platformFailure(exchange({ ...withoutDevice.exchange, callback: {} }));
    const withoutState = await consent();
    const { state: _state, ...stateless } = withoutState.exchange;
    const noState = await platformFailure(exchange(stateless));
    const wrongVerifier = await consent();
    const badVerifier = await platformFailure(exchange({ ...wrongVerifier.exchange, codeVerifier: 'x'.repeat(43) }));

    expect(noDevice.kind).toBe('permanent');
    expect(noDevice.message).toBe('device_id is missing or invalid (invalid_request)');
    expect(noState.message).toBe('state is missing or invalid (invalid_request)');
    expect(badVerifier.message).toBe('code_verifier does not match the challenge (invalid_grant)');
  });

  it('answers refusals in VK ID\'s shape, with the state echoed', async () => {
    const answer = await fetch(`${vk.url}/oauth2/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'nope', client_id: vk.clientId, state: 's' }),
    });

    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      error: 'invalid_grant', error_description: 'The authorization code is invalid or expired', state: 's',
    });
  });

  it('reads the profile from user_info with a token that lasts an hour', async () => {
    const started = Date.now();
    const { tokens, authorized } = await authorizeAndConnect(vkConnect, context, redirectUri);

    expect(authorized).toEqual({
      pick: false,
      accounts: [{
        accountId: '210700286',
        name: 'Ada Lovelace',
        username: null,
        picture: 'https://sun9-1.userapi.com/ada.jpg',
        instanceUrl: null,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        expiresAt: tokens.expiresAt,
      }],
    });
    expect(tokens.accessToken).toMatch(/^at-/);
    expect(tokens.expiresAt?.getTime()).toBeGreaterThanOrEqual(started + 3_600_000);
    expect(tokens.expiresAt?.getTime()).toBeLessThan(Date.now() + 3_600_000 + 1_000);
    const read = vk.received.at(-1);
    expect(read?.path).toBe('/oauth2/user_info');
    expect(read?.query.has('access_token')).toBe(false);
    expect(read === undefined ? null : formBody(read).get('client_id')).toBe(vk.clientId);
  });

  it('refuses a code used once already', async () => {
    const { exchange: code } = await consent();
    await exchange(code);
    const error = await platformFailure(exchange(code));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('The authorization code is invalid or expired (invalid_grant)');
  });

  it('refreshes through the app settings with the device id kept, and the spent refresh token then fails', async () => {
    const { tokens } = await authorizeAndConnect(vkConnect, context, redirectUri);
    const held = readVkRefreshCredential(tokens.refreshToken ?? '');
    const refresher = apps.refresherFor('vk');
    if (refresher === undefined) throw new Error('VK channels must be refreshable');
    const now = new Date(Date.now() + 50 * 60_000);
    const request = { provider: 'vk', refreshToken: tokens.refreshToken ?? '', instanceUrl: null, now };

    const renewed = await refresher(request);
    const renewedHeld = readVkRefreshCredential(renewed.refreshToken ?? '');
    expect(renewed.accessToken).not.toBe(tokens.accessToken);
    expect(vk.authority.userOf(renewed.accessToken)).toBe('user-1');
    expect(renewed.expiresAt).toEqual(new Date(now.getTime() + 3_600_000));
    expect(renewedHeld.deviceId).toBe(held.deviceId);
    expect(renewedHeld.refreshToken).not.toBe(held.refreshToken);
    const sent = exchanges().at(-1);
    expect(sent?.get('grant_type')).toBe('refresh_token');
    expect(sent?.get('device_id')).toBe(held.deviceId);
    expect(sent?.get('state')).not.toBe('');

    const spent = await platformFailure(refresher(request));
    expect(spent.kind).toBe('disconnected');
    expect((await refresher({ ...request, refreshToken: renewed.refreshToken ?? '' })).accessToken).toMatch(/^at-/);
  });

  it('refuses a refresh with another device id than the authorization\'s', async () => {
    const { tokens } = await authorizeAndConnect(vkConnect, context, redirectUri);
    const held = readVkRefreshCredential(tokens.refreshToken ?? '');
    const moved = encodeVkRefreshCredential({ ...held, deviceId: 'another-device' });
    const error = await platformFailure(vkConnect.refresh?.(moved, context) ?? Promise.resolve());

    expect(error.message).toBe('device_id is missing or invalid (invalid_request)');
  });

  it('calls an unknown refresh token, or one stored without its device id, disconnected', async () => {
    const unknown = encodeVkRefreshCredential({ refreshToken: 'rt-unknown', deviceId: 'device-1' });
    const refused = await platformFailure(vkConnect.refresh?.(unknown, context) ?? Promise.resolve());
    const bare = await platformFailure(vkConnect.refresh?.('rt-bare', context) ?? Promise.resolve());

    expect(refused.kind).toBe('disconnected');
    expect(refused.message).toBe('The refresh token is invalid or was revoked (invalid_grant)');
    expect(bare.kind).toBe('disconnected');
  });

  it('is refused by user_info once the hour of the access token has passed', async () => {
    const { tokens } = await authorizeAndConnect(vkConnect, context, redirectUri);
    vk.authority.now = () => Date.now() + 3_600_000;
    const error = await platformFailure(vkConnect.accounts(tokens, context));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('access_token is missing or invalid (invalid_token)');
  });
});
