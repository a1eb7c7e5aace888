import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startMediumSimulator,
  type RunningMediumSimulator,
} from '../../../test/simulators/medium/medium-simulator.ts';
import { mediumConnect } from './connect.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';

const contextFor = (apiUrl: string) => testConnectContext({ apiUrl });

describe('Medium connect against the simulator', () => {
  let medium: RunningMediumSimulator;

  beforeAll(async () => {
    medium = await startMediumSimulator([
      {
        id: '5303d74c64f66366f00cb9b2a94f3251bf5',
        username: 'ada',
        name: 'Ada Lovelace',
        imageUrl: 'https://images.medium.com/0*ada.png',
        tokens: ['181d415f34379af07b2c11d144dfbe35d'],
      },
    ]);
  });
  afterAll(async () => {
    await medium.close();
  });

  it('reads the profile the integration token belongs to', async () => {
    const values = { integrationToken: '181d415f34379af07b2c11d144dfbe35d' };
    const account = await mediumConnect.verify(values, contextFor(medium.apiUrl));

    expect(account).toEqual({
      accountId: '5303d74c64f66366f00cb9b2a94f3251bf5',
      name: 'Ada Lovelace',
      username: 'ada',
      picture: 'https://images.medium.com/0*ada.png',
      instanceUrl: null,
      accessToken: '181d415f34379af07b2c11d144dfbe35d',
      refreshToken: null,
      expiresAt: null,
    });
    const request = medium.received.at(-1);
    expect(request?.path).toBe('/v1/me');
    expect(request?.headers.authorization).toBe('Bearer 181d415f34379af07b2c11d144dfbe35d');
  });

  it('shows Medium’s own message for an invalid token', async () => {
    const error = await platformFailure(
      mediumConnect.verify({ integrationToken: 'revoked' }, contextFor(medium.apiUrl)),
    );

    expect(error.kind).toBe('disconnected');
    expect(error.httpStatus).toBe(401);
    expect(error.message).toBe('Token was invalid.');
  });

  it('calls an unreachable API a passing failure', async () => {
    const apiUrl = `${await closedOrigin()}/v1`;
    const error = await platformFailure(mediumConnect.verify({ integrationToken: 'x' }, contextFor(apiUrl)));

    expect(error.kind).toBe('retryable');
    expect(error.message).toBe('could not reach Medium');
  });
});
