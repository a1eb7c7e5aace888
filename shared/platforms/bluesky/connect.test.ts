import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBlueskySimulator, type BlueskySimulator } from '../../../test/simulators/bluesky/bluesky-simulator.ts';
import { connectionPolicyFor, type ConnectionPolicy } from '../../net/connection-policy.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { blueskyConnect } from './connect.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';

function contextFor(apiUrl: string, userHosts: ConnectionPolicy = connectionPolicyFor(true)): ConnectContext {
  return testConnectContext({ apiUrl, userHosts, timeoutMs: 5_000 });
}

const alice = {
  did: 'did:plc:alice123',
  handle: 'alice.bsky.social',
  email: 'alice@example.org',
  appPassword: 'abcd-efgh-ijkl-mnop',
  displayName: 'Alice',
  avatar: 'https://cdn.bsky.app/img/avatar/plain/did:plc:alice123/cid@jpeg',
};
const bob = { did: 'did:web:bob.example', handle: 'bob.example', email: 'bob@example', appPassword: 'pass-word' };

let entryway: BlueskySimulator;
let selfHosted: BlueskySimulator;
let context: ConnectContext;

function signIn(identifier: string, appPassword: string, on: ConnectContext = context) {
  return blueskyConnect.verify({ identifier, appPassword }, on);
}

function renew(refreshToken: string | null) {
  if (blueskyConnect.refresh === undefined) throw new Error('bluesky must renew sessions');
  return blueskyConnect.refresh(refreshToken ?? '', null, context);
}

beforeAll(async () => {
  entryway = await startBlueskySimulator();
  selfHosted = await startBlueskySimulator();
  entryway.addAccount(alice);
  selfHosted.addAccount(bob);
  context = contextFor(entryway.url);
});

afterAll(async () => {
  await entryway.close();
  await selfHosted.close();
});

describe('bluesky connect', () => {
  it('opens a session with the app password and reads the profile of its DID', async () => {
    const startedAt = Date.now();
    const account = await signIn('@Alice.bsky.social', alice.appPassword);
    expect(account).toMatchObject({
      accountId: 'did:plc:alice123',
      name: 'Alice',
      username: 'alice.bsky.social',
      picture: alice.avatar,
      instanceUrl: null,
    });
    expect(account.refreshToken).not.toBeNull();
    // The access JWT lives two hours; its exp claim is what SPS records.
    const expiresIn = (account.expiresAt?.getTime() ?? 0) - startedAt;
    expect(expiresIn).toBeGreaterThan(7_100_000);
    expect(expiresIn).toBeLessThan(7_300_000);
    const read = entryway.received.find((request) => request.path === '/xrpc/app.bsky.actor.getProfile');
    expect(read?.query.get('actor')).toBe('did:plc:alice123');
  });

  it('shows the PDS\'s refusal of a wrong password', async () => {
    const error = await platformFailure(signIn('alice.bsky.social', 'nope'));
    expect(error.message).toBe('Bluesky: Invalid identifier or password');
    expect(error.kind).toBe('disconnected');
  });

  it('connects an account on the PDS the user typed, not the entryway', async () => {
    const offEntryway = contextFor(await closedOrigin());
    const values = { identifier: 'bob.example', appPassword: 'pass-word', pdsUrl: `${selfHosted.url}/` };
    const account = await blueskyConnect.verify(values, offEntryway);
    expect(account).toMatchObject({ accountId: bob.did, name: 'bob.example', instanceUrl: selfHosted.url });
  });

  it('is retryable when the PDS cannot be reached', async () => {
    const error = await platformFailure(signIn('alice', 'x', contextFor(await closedOrigin())));
    expect(error.kind).toBe('retryable');
  });

  it('refuses a typed PDS over http or on a private address under the public-only policy', async () => {
    const before = selfHosted.received.length;
    const values = { identifier: 'bob.example', appPassword: 'pass-word', pdsUrl: selfHosted.url };
    const publicOnly = contextFor(entryway.url, connectionPolicyFor(false));
    const overHttp = await platformFailure(blueskyConnect.verify(values, publicOnly));
    expect(overHttp.message).toContain('only https URLs');
    const publicOverHttp = { ...connectionPolicyFor(false), allowHttp: true };
    const privateAddress = await platformFailure(
      blueskyConnect.verify(values, contextFor(entryway.url, publicOverHttp)),
    );
    expect(privateAddress.message).toContain('may not be fetched');
    expect(selfHosted.received.length).toBe(before);
  });

  it('renews the session with the refresh token, which then is spent', async () => {
    const account = await signIn('alice@example.org', alice.appPassword);
    const renewed = await renew(account.refreshToken);
    expect(renewed.accessToken).not.toBe(account.accessToken);
    expect(renewed.refreshToken).not.toBe(account.refreshToken);
    expect(renewed.expiresAt?.getTime()).toBeGreaterThan(Date.now());
    const sent = entryway.received.at(-1);
    expect(sent?.headers.authorization).toBe(`Bearer ${account.refreshToken ?? ''}`);

    const spent = await platformFailure(renew(account.refreshToken));
    expect(spent.message).toBe('Bluesky: Token has been revoked');
    expect(spent.kind).toBe('disconnected');
  });

  it('asks for a reconnect when the refresh token expired', async () => {
    const account = await signIn('did:plc:alice123', alice.appPassword);
    entryway.expireAll();
    const error = await platformFailure(renew(account.refreshToken));
    expect(error).toMatchObject({ kind: 'disconnected', httpStatus: 400, message: 'Bluesky: Token has expired' });
  });
});
