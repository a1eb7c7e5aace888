import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startHashnodeSimulator, unauthenticatedMessage,
} from '../../../test/simulators/hashnode/hashnode-simulator.ts';
import type { RunningSimulator } from '../../../test/simulators/kit/simulator-server.ts';
import { hashnodeConnect } from './connect.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';

const contextFor = (apiUrl: string) => testConnectContext({ apiUrl });

describe('Hashnode connect against the simulator', () => {
  let hashnode: RunningSimulator;

  beforeAll(async () => {
    hashnode = await startHashnodeSimulator([{
      id: '65a1f0c2e4b0a1b2c3d4e5f6',
      username: 'ada',
      name: 'Ada Lovelace',
      profilePicture: 'https://cdn.hashnode.com/res/hashnode/image/upload/ada.png',
      email: 'ada@example.com',
      tokens: ['a1b2c3d4-e5f6-7890-abcd-ef1234567890'],
    }]);
  });
  afterAll(async () => { await hashnode.close(); });

  it('reads the profile the personal access token belongs to', async () => {
    const values = { token: 'a1b2c3d4-e5f6-7890-abcd-ef1234567890' };
    const account = await hashnodeConnect.verify(values, contextFor(hashnode.url));

    expect(account).toEqual({
      accountId: '65a1f0c2e4b0a1b2c3d4e5f6',
      name: 'Ada Lovelace',
      username: 'ada',
      picture: 'https://cdn.hashnode.com/res/hashnode/image/upload/ada.png',
      instanceUrl: null,
      accessToken: 'a1b2c3d4-e5f6-7890-abcd-ef1234567890',
      refreshToken: null,
      expiresAt: null,
    });
    const request = hashnode.received.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.headers.authorization).toBe('a1b2c3d4-e5f6-7890-abcd-ef1234567890');
  });

  it('shows Hashnode’s UNAUTHENTICATED error, sent with HTTP 200, as a refusal', async () => {
    const error = await platformFailure(hashnodeConnect.verify({ token: 'revoked-token' }, contextFor(hashnode.url)));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe(unauthenticatedMessage);
  });

  it('calls an unreachable endpoint a passing failure', async () => {
    const apiUrl = await closedOrigin();
    const error = await platformFailure(hashnodeConnect.verify({ token: 'x' }, contextFor(apiUrl)));

    expect(error.kind).toBe('retryable');
    expect(error.message).toBe('could not reach Hashnode');
  });
});
