import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startListmonkSimulator, type RunningListmonkSimulator, type SimulatedListmonkApiUser,
} from '../../../test/simulators/listmonk/listmonk-simulator.ts';
import { connectionPolicyFor, type ConnectionPolicy } from '../../net/connection-policy.ts';
import { listmonkConnect } from './connect.ts';
import { readListmonkCredential } from './credential.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';

const admin: SimulatedListmonkApiUser = {
  id: 3,
  username: 'sps',
  name: 'SPS publisher',
  token: 'Qm9vdHN0cmFwVG9rZW4',
  role: { id: 1, name: 'Super Admin', permissions: [] },
};

const campaigner: SimulatedListmonkApiUser = {
  id: 4,
  username: 'campaigns',
  name: 'Campaigns only',
  token: 'c2VuZC1vbmx5',
  role: {
    id: 2,
    name: 'Campaigner',
    permissions: ['campaigns:get', 'campaigns:manage', 'campaigns:send', 'lists:get_all'],
  },
};

const contextWith = (userHosts: ConnectionPolicy) => testConnectContext({ userHosts });

const privateNetworkAllowed = contextWith(connectionPolicyFor(true));

describe('listmonk connect against the simulator', () => {
  let listmonk: RunningListmonkSimulator;
  let legacy: RunningListmonkSimulator;

  beforeAll(async () => {
    listmonk = await startListmonkSimulator({
      users: [admin, campaigner],
      siteName: 'Acme newsletter',
      logoUrl: 'https://lists.example.com/uploads/logo.png',
    });
    legacy = await startListmonkSimulator({ users: [admin], siteName: 'Old', legacy: true });
  });
  afterAll(async () => {
    await listmonk.close();
    await legacy.close();
  });

  it('signs in as the API user and names the channel after the instance', async () => {
    const values = { url: `${listmonk.rootUrl}/admin/campaigns`, apiUser: 'sps', token: admin.token };
    const account = await listmonkConnect.verify(values, privateNetworkAllowed);

    expect(account).toMatchObject({
      accountId: `sps@${listmonk.rootUrl}`,
      name: 'sps (Acme newsletter)',
      username: 'sps',
      picture: 'https://lists.example.com/uploads/logo.png',
      instanceUrl: listmonk.rootUrl,
      refreshToken: null,
      expiresAt: null,
    });
    expect(readListmonkCredential(account.accessToken)).toEqual({ apiUser: 'sps', token: admin.token });
    expect(listmonk.received.slice(-2).map((request) => request.path)).toEqual(['/api/profile', '/api/settings']);
    // Basic auth: v4 and later take it for API users, and earlier versions know no other scheme.
    const basic = Buffer.from(`sps:${admin.token}`).toString('base64');
    expect(listmonk.received.at(-2)?.headers.authorization).toBe(`Basic ${basic}`);
  });

  it('connects a user that may not read the settings, without the instance name', async () => {
    const values = { url: listmonk.rootUrl, apiUser: 'campaigns', token: campaigner.token };
    const account = await listmonkConnect.verify(values, privateNetworkAllowed);

    expect(account).toMatchObject({ accountId: `campaigns@${listmonk.rootUrl}`, name: 'campaigns', picture: null });
  });

  it('shows listmonk’s own message for a wrong token', async () => {
    const values = { url: listmonk.rootUrl, apiUser: 'sps', token: 'wrong' };
    const error = await platformFailure(listmonkConnect.verify(values, privateNetworkAllowed));

    expect(error.kind).toBe('disconnected');
    expect(error.httpStatus).toBe(403);
    expect(error.message).toBe('invalid API credentials');
  });

  it('connects an instance older than v4 with the admin login, checked on its settings', async () => {
    const values = { url: legacy.rootUrl, apiUser: 'sps', token: admin.token };
    const account = await listmonkConnect.verify(values, privateNetworkAllowed);

    expect(account).toMatchObject({ accountId: `sps@${legacy.rootUrl}`, name: 'sps', instanceUrl: legacy.rootUrl });
    expect(legacy.received.slice(-2).map((request) => request.path)).toEqual(['/api/profile', '/api/settings']);
  });

  it('shows the 401 of an instance older than v4 for a wrong admin password', async () => {
    const values = { url: legacy.rootUrl, apiUser: 'sps', token: 'wrong' };
    const error = await platformFailure(listmonkConnect.verify(values, privateNetworkAllowed));

    expect(error.kind).toBe('disconnected');
    expect(error.httpStatus).toBe(401);
    expect(error.message).toBe('Unauthorized');
  });

  it('says so when the address answers neither listmonk route', async () => {
    const values = { url: `${listmonk.rootUrl}/elsewhere`, apiUser: 'sps', token: admin.token };
    const error = await platformFailure(listmonkConnect.verify(values, privateNetworkAllowed));

    expect(error.kind).toBe('permanent');
    expect(error.message).toContain(`no listmonk answers at ${listmonk.rootUrl}/elsewhere`);
  });

  it('calls an unreachable instance a passing failure', async () => {
    const values = { url: await closedOrigin(), apiUser: 'sps', token: admin.token };
    const error = await platformFailure(listmonkConnect.verify(values, privateNetworkAllowed));

    expect(error.kind).toBe('retryable');
    expect(error.message).toBe('could not reach the listmonk instance');
  });

  it('refuses a private address under the production policy, before sending anything', async () => {
    const before = listmonk.received.length;
    const values = { url: `https://127.0.0.1:${new URL(listmonk.url).port}`, apiUser: 'sps', token: admin.token };
    const error = await platformFailure(listmonkConnect.verify(values, contextWith(connectionPolicyFor(false))));

    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('127.0.0.1 is an address that may not be fetched');
    expect(listmonk.received.length).toBe(before);
  });

  it('refuses plain http unless the policy allows it', async () => {
    const before = listmonk.received.length;
    const httpsOnly = contextWith({ isAllowedAddress: () => true, allowHttp: false });
    const values = { url: listmonk.rootUrl, apiUser: 'sps', token: admin.token };
    const error = await platformFailure(listmonkConnect.verify(values, httpsOnly));

    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('only https URLs can be fetched');
    expect(listmonk.received.length).toBe(before);
  });
});
