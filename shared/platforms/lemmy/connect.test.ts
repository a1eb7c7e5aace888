import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLemmySimulator, type LemmySimulator } from '../../../test/simulators/lemmy/lemmy-simulator.ts';
import { connectionPolicyFor, type ConnectionPolicy } from '../../net/connection-policy.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { lemmyConnect, lemmyInstanceOrigin } from './connect.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';

function contextWith(userHosts: ConnectionPolicy): ConnectContext {
  // A user-hosted platform has no app URL: verify() must call only the instance the user typed.
  return testConnectContext({ apiUrl: 'https://unused.invalid', userHosts, timeoutMs: 5_000 });
}

const context = contextWith(connectionPolicyFor(true));
let simulator: LemmySimulator;

beforeAll(async () => {
  simulator = await startLemmySimulator();
  simulator.addUser({
    id: 7, name: 'alice', email: 'alice@example.org', password: 'correct horse', displayName: 'Alice A.',
    avatar: 'https://lemmy.example/pictrs/image/alice.png',
  });
  simulator.addUser({ id: 8, name: 'bob', email: 'bob@example.org', password: 'hunter22', totp: '123456' });
  simulator.addUser({ id: 9, name: 'carol', email: 'carol@example.org', password: 'pending!', pending: true });
});

afterAll(async () => {
  await simulator.close();
});

describe('lemmy connect', () => {
  it('signs in, reads the account from /api/v3/site and keeps only the session token', async () => {
    const values = { instanceUrl: `${simulator.url}/c/technology`, username: 'alice', password: 'correct horse' };
    const account = await lemmyConnect.verify(values, context);
    const host = new URL(simulator.url).host;
    expect(account).toMatchObject({
      accountId: `${simulator.url}/u/alice`, name: 'Alice A.', username: `alice@${host}`,
      picture: 'https://lemmy.example/pictrs/image/alice.png', instanceUrl: simulator.url,
      refreshToken: null, expiresAt: null,
    });
    expect(simulator.sessions.has(account.accessToken)).toBe(true);
    expect(account.accessToken).not.toContain('correct horse');
  });

  it('signs in by email with the two-factor code', async () => {
    const values = { instanceUrl: simulator.url, username: 'BOB@example.org', password: 'hunter22', totp: '123456' };
    const account = await lemmyConnect.verify(values, context);
    expect(account).toMatchObject({ accountId: `${simulator.url}/u/bob`, name: 'bob', picture: null });
    const login = simulator.received.filter((request) => request.path === '/api/v3/user/login').at(-1);
    expect(JSON.parse(login?.text ?? '{}')).toEqual({
      username_or_email: 'BOB@example.org', password: 'hunter22', totp_2fa_token: '123456',
    });
  });

  it('shows Lemmy\'s refusal of a wrong password', async () => {
    const values = { instanceUrl: simulator.url, username: 'alice', password: 'wrong' };
    const error = await platformFailure(lemmyConnect.verify(values, context));
    expect(error.message).toBe('Lemmy: wrong username, email or password (incorrect_login)');
    expect(['permanent', 'disconnected']).toContain(error.kind);
  });

  it('asks for the two-factor code when the account has one', async () => {
    const values = { instanceUrl: simulator.url, username: 'bob', password: 'hunter22' };
    const error = await platformFailure(lemmyConnect.verify(values, context));
    expect(error.message).toContain('missing_totp_token');
    expect(error.kind).toBe('permanent');
  });

  it('refuses an account the instance gives no session yet', async () => {
    const values = { instanceUrl: simulator.url, username: 'carol', password: 'pending!' };
    const error = await platformFailure(lemmyConnect.verify(values, context));
    expect(error.message).toContain('gave no session');
    expect(error.kind).toBe('permanent');
  });

  it('is retryable when the instance cannot be reached', async () => {
    const values = { instanceUrl: await closedOrigin(), username: 'alice', password: 'x' };
    const error = await platformFailure(lemmyConnect.verify(values, context));
    expect(error.kind).toBe('retryable');
  });

  it('refuses plain http unless the deployment allows it, before any request', async () => {
    const before = simulator.received.length;
    const values = { instanceUrl: simulator.url, username: 'alice', password: 'correct horse' };
    const error = await platformFailure(lemmyConnect.verify(values, contextWith(connectionPolicyFor(false))));
    expect(error.message).toContain('only https URLs');
    expect(error.kind).toBe('permanent');
    expect(simulator.received.length).toBe(before);
  });

  it('refuses a private address under the public-only policy, literal or by name', async () => {
    const before = simulator.received.length;
    const publicOverHttp = contextWith({ ...connectionPolicyFor(false), allowHttp: true });
    const literal = { instanceUrl: simulator.url, username: 'alice', password: 'correct horse' };
    const byLiteral = await platformFailure(lemmyConnect.verify(literal, publicOverHttp));
    expect(byLiteral.message).toContain('may not be fetched');
    const named = { ...literal, instanceUrl: simulator.url.replace('127.0.0.1', 'localhost') };
    const byName = await platformFailure(lemmyConnect.verify(named, publicOverHttp));
    expect(byName.cause).toMatchObject({ reason: 'blocked_address' });
    expect(simulator.received.length).toBe(before);
  });

  it('takes the origin of what the user typed, https by default', () => {
    const publicOnly = connectionPolicyFor(false);
    expect(lemmyInstanceOrigin(' lemmy.world/c/technology ', publicOnly)).toBe('https://lemmy.world');
    expect(lemmyInstanceOrigin('https://Lemmy.World:443/', publicOnly)).toBe('https://lemmy.world');
    expect(() => lemmyInstanceOrigin('https://user:pw@lemmy.world', publicOnly)).toThrow(PlatformError);
  });
});
