import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { formBody } from '../../../test/simulators/kit/simulator-server.ts';
import { startVkSimulator, type RunningVkSimulator } from '../../../test/simulators/vk/vk-simulator.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { vkConnect } from './connect.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';

const redirectUri = 'https://sps.example/channels/callback/vk';


describe('VK connect against the simulator', () => {
  let vk: RunningVkSimulator;
  let context: ConnectContext;

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
  });
  afterAll(async () => { await vk.close(); });

  it('asks for wall, photos, video and offline access, with the API version', async () => {
    const { authorizeUrl } = await authorizeAndConnect(vkConnect, context, redirectUri);

    expect(authorizeUrl.pathname).toBe('/authorize');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(vk.clientId);
    expect(authorizeUrl.searchParams.get('scope')).toBe('wall,photos,video,offline');
    expect(authorizeUrl.searchParams.get('v')).toBe('5.199');
    const exchange = vk.received.find((request) => request.path === '/access_token');
    expect(exchange === undefined ? null : formBody(exchange).get('client_secret')).toBe(vk.clientSecret);
  });

  it('reads the profile with a token that does not expire', async () => {
    const { tokens, authorized } = await authorizeAndConnect(vkConnect, context, redirectUri);

    expect(tokens.expiresAt).toBeNull();
    expect(authorized).toEqual({
      pick: false,
      accounts: [{
        accountId: '210700286',
        name: 'Ada Lovelace',
        username: 'ada',
        picture: 'https://sun9-1.userapi.com/ada.jpg',
        instanceUrl: null,
        accessToken: tokens.accessToken,
        refreshToken: null,
        expiresAt: null,
      }],
    });
    const read = vk.received.at(-1);
    expect(read?.query.has('access_token')).toBe(false);
    expect(read === undefined ? null : formBody(read).get('v')).toBe('5.199');
  });

  it('shows VK’s refusal of a wrong client secret', async () => {
    const wrong = { ...context, app: { ...context.app, clientSecret: 'not-the-secret' } };
    const error = await platformFailure(authorizeAndConnect(vkConnect, wrong, redirectUri));

    expect(error.httpStatus).toBe(401);
    expect(error.message).toBe('client_secret is incorrect (invalid_client)');
  });

  it('refuses a code used once already', async () => {
    await authorizeAndConnect(vkConnect, context, redirectUri);
    const used = vk.received.filter((request) => request.path === '/access_token').at(-1);
    const code = used === undefined ? '' : formBody(used).get('code') ?? '';
    const client = { clientId: vk.clientId, clientSecret: vk.clientSecret };
    const again = { code, redirectUri, codeVerifier: null };
    const provider = vkConnect.provider(context.app);
    const error = await platformFailure(exchangeAuthorizationCode(provider, client, again, { timeoutMs: 2_000 }));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Code is invalid or expired. (invalid_grant)');
  });

  it('calls a revoked token disconnected, though VK answers it with HTTP 200', async () => {
    const { tokens } = await authorizeAndConnect(vkConnect, context, redirectUri);
    vk.authority.revokeAll();
    const error = await platformFailure(vkConnect.accounts(tokens, context));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('User authorization failed: invalid access_token (4).');
  });
});
