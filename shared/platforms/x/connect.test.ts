import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { startXSimulator, type XSimulator } from '../../../test/simulators/x/x-simulator.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext, UserTokens } from '../kit/platform-connect.ts';
import { xConnect } from './connect.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';


let sim: XSimulator;
let context: ConnectContext;

function contextWith(clientSecret: string, apiUrl = sim.url): ConnectContext {
  return {
    app: { clientId: sim.clientId, clientSecret, apiUrl, authUrl: sim.url, tokenUrl: sim.url, botToken: null },
    timeoutMs: 5_000,
    userHosts: connectionPolicyFor(true),
  };
}

function renew(refreshToken: string | null): Promise<UserTokens> {
  if (xConnect.refresh === undefined) throw new Error('X refresh tokens are renewed by the room');
  return xConnect.refresh(refreshToken ?? '', context);
}

const alice = {
  id: '2244994945', name: 'Alice', username: 'alice',
  profile_image_url: 'https://pbs.twimg.com/profile_images/1/a_normal.jpg',
};

beforeAll(async () => {
  sim = await startXSimulator();
  sim.addUser(alice);
  sim.authority.consentingUser = alice.id;
  context = contextWith(sim.clientSecret);
});

afterAll(async () => {
  await sim.close();
});

describe('x connect', () => {
  it('asks X for the publishing scopes with PKCE S256 on its authorize page', async () => {
    const { authorizeUrl } = await authorizeAndConnect(xConnect, context);
    expect(authorizeUrl.pathname).toBe('/i/oauth2/authorize');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(sim.clientId);
    expect(authorizeUrl.searchParams.get('scope')).toBe('tweet.read tweet.write users.read media.write offline.access');
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizeUrl.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    const exchange = sim.received.filter((request) => request.path === '/2/oauth2/token').at(-1);
    expect(exchange?.headers.authorization).toMatch(/^Basic /);
    // A confidential client's secret goes in the Basic header only, never in the form.
    expect(new URLSearchParams(exchange?.text ?? '').get('client_secret')).toBeNull();
  });

  it('reads the profile with the issued token: one account, two-hour token, refresh token', async () => {
    const startedAt = Date.now();
    const { tokens, authorized } = await authorizeAndConnect(xConnect, context);
    expect(authorized.pick).toBe(false);
    expect(authorized.accounts).toEqual([{
      accountId: alice.id, name: 'Alice', username: 'alice', picture: alice.profile_image_url, instanceUrl: null,
      accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt,
    }]);
    expect(tokens.refreshToken).not.toBeNull();
    const lifetime = (tokens.expiresAt?.getTime() ?? 0) - startedAt;
    expect(lifetime).toBeGreaterThan(7_190_000);
    expect(lifetime).toBeLessThanOrEqual(7_200_000 + 1_000);
  });

  it('shows X\'s refusal of a wrong client secret', async () => {
    const error = await platformFailure(authorizeAndConnect(xConnect, contextWith('not-the-secret')));
    expect(error.message).toBe('Missing valid authorization header (unauthorized_client)');
    expect(error.kind).toBe('permanent');
  });

  it('refuses a code used twice in X\'s words', async () => {
    await authorizeAndConnect(xConnect, context);
    const exchange = sim.received.filter((request) => request.path === '/2/oauth2/token').at(-1);
    const form = new URLSearchParams(exchange?.text ?? '');
    const provider = xConnect.provider(context.app);
    const again = exchangeAuthorizationCode(
      provider,
      { clientId: sim.clientId, clientSecret: sim.clientSecret },
      {
        code: form.get('code') ?? '',
        redirectUri: form.get('redirect_uri') ?? '',
        codeVerifier: form.get('code_verifier'),
      },
      { timeoutMs: 5_000 },
    );
    const error = await platformFailure(again);
    expect(error.message).toBe('Value passed for the authorization code was invalid. (invalid_request)');
    expect(error.kind).toBe('permanent');
  });

  it('renews the token with a rotated refresh token; the spent one is refused as disconnected', async () => {
    const { tokens } = await authorizeAndConnect(xConnect, context);
    const renewed = await renew(tokens.refreshToken);
    expect(renewed.accessToken).not.toBe(tokens.accessToken);
    expect(renewed.refreshToken).not.toBeNull();
    expect(renewed.refreshToken).not.toBe(tokens.refreshToken);
    const again = await platformFailure(renew(tokens.refreshToken));
    expect(again.kind).toBe('disconnected');
    expect(again.message).toBe('Value passed for the token was invalid. (invalid_request)');
    const next = await xConnect.accounts(renewed, context);
    expect(next.accounts[0]?.accountId).toBe(alice.id);
  });

  it('calls an unknown refresh token disconnected', async () => {
    const error = await platformFailure(renew('rt-never-issued'));
    expect(error.kind).toBe('disconnected');
  });

  it('refuses the access token once its two hours are over', async () => {
    const { tokens } = await authorizeAndConnect(xConnect, context);
    sim.authority.now = () => Date.now() + 7_201_000;
    try {
      const error = await platformFailure(xConnect.accounts(tokens, context));
      expect(error.kind).toBe('disconnected');
      expect(error.message).toBe('Unauthorized');
    } finally {
      sim.authority.now = Date.now;
    }
  });

  it('calls an unreachable X retryable', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    const tokens = { accessToken: 'at', refreshToken: null, expiresAt: null };
    const closed = contextWith(sim.clientSecret, `http://127.0.0.1:${String(port)}`);
    const error = await platformFailure(xConnect.accounts(tokens, closed));
    expect(error.kind).toBe('retryable');
  });
});
