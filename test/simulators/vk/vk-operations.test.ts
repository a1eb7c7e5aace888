import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vkConnect } from '../../../shared/platforms/vk/connect.ts';
import { connectionPolicyFor } from '../../../shared/net/connection-policy.ts';
import { authorizeAndConnect } from '../kit/oauth-dance.ts';
import { startVkSimulator, type RunningVkSimulator } from './vk-simulator.ts';

const userId = 210700286;
let vk: RunningVkSimulator;
let token = '';

beforeAll(async () => {
  vk = await startVkSimulator({
    'user-1': { id: userId, firstName: 'Ada', lastName: 'Lovelace', screenName: 'ada', photo200: 'https://a/ada.jpg' },
  });
  const { url } = vk;
  const app = { clientId: vk.clientId, clientSecret: null, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null };
  const context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
  const { tokens } = await authorizeAndConnect(vkConnect, context, 'https://sps.example/channels/callback/vk');
  token = tokens.accessToken;
  // Each test makes one call: VK's per-second limit is not what these tests are about.
  vk.requestsPerSecond = 100;
});

afterAll(async () => {
  await vk.close();
});

async function call(method: string, fields: Record<string, string>): Promise<Record<string, unknown>> {
  const answer = await fetch(`${vk.url}/method/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, access_token: token, v: '5.199' }),
  });
  return await answer.json() as Record<string, unknown>;
}

describe('the VK simulator held to VK\'s description', () => {
  it('reads a list parameter as VK does, one comma-separated value', async () => {
    const answer = await call('users.get', { fields: 'screen_name,photo_200' });

    expect(answer.response).toEqual([expect.objectContaining({ id: userId, screen_name: 'ada' })]);
  });

  it('refuses a parameter the method does not take with error 100, naming it', async () => {
    const answer = await call('wall.post', { mesage: 'Hello' });

    expect(answer).toMatchObject({
      error: {
        error_code: 100,
        error_msg: 'One of the parameters specified was missing or invalid: body.mesage is not a parameter of the '
          + 'operation',
      },
    });
    expect(vk.records.posts).toEqual([]);
  });

  it('refuses a value off the list a parameter takes', async () => {
    const answer = await call('users.get', { fields: 'screen_name,followers' });

    expect(answer).toMatchObject({ error: { error_code: 100 } });
  });
});
