import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevtoSimulator, type RunningDevtoSimulator } from '../../../test/simulators/devto/devto-simulator.ts';
import { devtoConnect } from './connect.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';

const contextFor = (apiUrl: string) => testConnectContext({ apiUrl });

describe('Dev.to connect against the simulator', () => {
  let devto: RunningDevtoSimulator;

  beforeAll(async () => {
    devto = await startDevtoSimulator([
      {
        id: 1234, username: 'ada', name: 'Ada Lovelace', profileImage: 'https://media.dev.to/ada.png',
        apiKeys: ['good-key'],
      },
      {
        id: 99, username: 'spam', name: 'Spammer', profileImage: 'https://media.dev.to/s.png', apiKeys: ['spam-key'],
        suspended: true,
      },
    ]);
  });
  afterAll(async () => { await devto.close(); });

  it('reads the profile the API key belongs to', async () => {
    const account = await devtoConnect.verify({ apiKey: 'good-key' }, contextFor(devto.apiUrl));

    expect(account).toEqual({
      accountId: '1234',
      name: 'Ada Lovelace',
      username: 'ada',
      picture: 'https://media.dev.to/ada.png',
      instanceUrl: null,
      accessToken: 'good-key',
      refreshToken: null,
      expiresAt: null,
    });
    const request = devto.received.at(-1);
    expect(request?.path).toBe('/api/users/me');
    expect(request?.headers['api-key']).toBe('good-key');
    expect(request?.headers.accept).toBe('application/vnd.forem.api-v1+json');
  });

  it('shows Forem’s refusal of an unknown key', async () => {
    const error = await platformFailure(devtoConnect.verify({ apiKey: 'wrong-key' }, contextFor(devto.apiUrl)));

    expect(error.kind).toBe('disconnected');
    expect(error.httpStatus).toBe(401);
    expect(error.message).toBe('unauthorized: dev.to did not accept the API key');
  });

  it('refuses the key of a suspended account the same way', async () => {
    const error = await platformFailure(devtoConnect.verify({ apiKey: 'spam-key' }, contextFor(devto.apiUrl)));

    expect(error.message).toBe('unauthorized: dev.to did not accept the API key');
  });

  it('calls an unreachable API a passing failure', async () => {
    const apiUrl = `${await closedOrigin()}/api`;
    const error = await platformFailure(devtoConnect.verify({ apiKey: 'good-key' }, contextFor(apiUrl)));

    expect(error.kind).toBe('retryable');
    expect(error.message).toBe('could not reach dev.to');
  });
});
