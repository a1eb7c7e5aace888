import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import {
  startPinterestSimulator,
  type PinterestSimulator,
} from '../../../test/simulators/pinterest/pinterest-simulator.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext, UserTokens } from '../kit/platform-connect.ts';
import { pinterestConnect } from './connect.ts';
import { encodePinterestRefresh, readPinterestCredential, readPinterestRefresh } from './credential.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';

let sim: PinterestSimulator;
let context: ConnectContext;

function contextWith(clientSecret: string): ConnectContext {
  return {
    app: {
      clientId: sim.clientId,
      clientSecret,
      apiUrl: sim.url,
      authUrl: sim.url,
      tokenUrl: sim.url,
      botToken: null,
    },
    timeoutMs: 5_000,
    userHosts: connectionPolicyFor(true),
  };
}

function renew(refreshToken: string | null): Promise<UserTokens> {
  if (pinterestConnect.refresh === undefined) throw new Error('Pinterest tokens are renewed by the room');
  return pinterestConnect.refresh(refreshToken ?? '', context);
}

const picture = 'https://i.pinimg.com/75x75_RS/aa/bb/cc/maker.jpg';

beforeAll(async () => {
  sim = await startPinterestSimulator();
  sim.addUser({
    id: '549755885175',
    username: 'maker',
    profile_image: picture,
    account_type: 'BUSINESS',
    boards: [
      { id: '549755885175001', name: 'Recipes', privacy: 'PUBLIC' },
      { id: '549755885175002', name: 'Workshop', privacy: 'PROTECTED' },
    ],
  });
  const many = Array.from({ length: 260 }, (_, index) => ({
    id: String(700_000 + index),
    name: `Board ${String(index)}`,
    privacy: 'PUBLIC' as const,
  }));
  sim.addUser({ id: '7', username: 'collector', profile_image: picture, account_type: 'PINNER', boards: many });
  sim.authority.consentingUser = '549755885175';
  context = contextWith(sim.clientSecret);
});

afterAll(async () => {
  await sim.close();
});

describe('pinterest connect', () => {
  it('asks for the board and pin scopes, comma-separated, on Pinterest\'s authorize page', async () => {
    const { authorizeUrl } = await authorizeAndConnect(pinterestConnect, context);
    expect(authorizeUrl.pathname).toBe('/oauth/');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(sim.clientId);
    expect(authorizeUrl.searchParams.get('scope'))
      .toBe('boards:read,boards:write,pins:read,pins:write,user_accounts:read');
    const exchange = sim.received.filter((request) => request.path === '/v5/oauth/token').at(-1);
    expect(exchange?.headers.authorization).toMatch(/^Basic /);
  });

  it('offers every board to pick, each with a token bound to the board', async () => {
    const startedAt = Date.now();
    const { tokens, authorized } = await authorizeAndConnect(pinterestConnect, context);
    expect(authorized.pick).toBe(true);
    const offered = authorized.accounts.map(({ accountId, name, username, picture: avatar }) => ({
      accountId,
      name,
      username,
      avatar,
    }));
    expect(offered).toEqual([
      { accountId: '549755885175001', name: 'Recipes', username: 'maker', avatar: picture },
      { accountId: '549755885175002', name: 'Workshop', username: 'maker', avatar: picture },
    ]);
    const second = authorized.accounts[1];
    expect(readPinterestCredential(second?.accessToken ?? '')).toEqual({
      accessToken: tokens.accessToken,
      boardId: '549755885175002',
    });
    expect(readPinterestRefresh(second?.refreshToken ?? '')).toEqual({
      refreshToken: tokens.refreshToken,
      boardId: '549755885175002',
    });
    const lifetime = (tokens.expiresAt?.getTime() ?? 0) - startedAt;
    expect(lifetime).toBeGreaterThan(2_591_990_000);
    expect(lifetime).toBeLessThanOrEqual(2_592_001_000);
  });

  it('follows the bookmark through every page of boards', async () => {
    sim.authority.consentingUser = '7';
    try {
      const { authorized } = await authorizeAndConnect(pinterestConnect, context);
      expect(authorized.accounts).toHaveLength(260);
      expect(authorized.accounts.at(-1)?.accountId).toBe('700259');
    } finally {
      sim.authority.consentingUser = '549755885175';
    }
  });

  it('shows Pinterest\'s refusal of a wrong client secret', async () => {
    const error = await platformFailure(authorizeAndConnect(pinterestConnect, contextWith('wrong')));
    expect(error.message).toBe('Authentication failed.');
    expect(error.kind).toBe('permanent');
  });

  it('refuses a code used twice', async () => {
    await authorizeAndConnect(pinterestConnect, context);
    const exchange = sim.received.filter((request) => request.path === '/v5/oauth/token').at(-1);
    const form = new URLSearchParams(exchange?.text ?? '');
    const again = exchangeAuthorizationCode(
      pinterestConnect.provider(context.app),
      { clientId: sim.clientId, clientSecret: sim.clientSecret },
      { code: form.get('code') ?? '', redirectUri: form.get('redirect_uri') ?? '', codeVerifier: null },
      { timeoutMs: 5_000 },
    );
    const error = await platformFailure(again);
    expect(error.message).toBe('Invalid parameters.');
    expect(error.kind).toBe('permanent');
  });

  it('renews a board\'s token with a new refresh token; the spent one is refused as disconnected', async () => {
    const { authorized } = await authorizeAndConnect(pinterestConnect, context);
    const board = authorized.accounts[0];
    const renewed = await renew(board?.refreshToken ?? null);
    const credential = readPinterestCredential(renewed.accessToken);
    expect(credential.boardId).toBe('549755885175001');
    expect(credential.accessToken).not.toBe(readPinterestCredential(board?.accessToken ?? '').accessToken);
    const refresh = readPinterestRefresh(renewed.refreshToken ?? '');
    expect(refresh.boardId).toBe('549755885175001');
    expect(refresh.refreshToken).not.toBe(readPinterestRefresh(board?.refreshToken ?? '').refreshToken);
    const spent = await platformFailure(renew(board?.refreshToken ?? null));
    expect(spent.kind).toBe('disconnected');
    expect(spent.message).toBe('Invalid parameters.');
  });

  it('calls an unknown refresh token disconnected', async () => {
    const error = await platformFailure(
      renew(encodePinterestRefresh({ refreshToken: 'rt-never-issued', boardId: '1' })),
    );
    expect(error.kind).toBe('disconnected');
  });

  it('refuses the access token after its 30 days', async () => {
    const { tokens } = await authorizeAndConnect(pinterestConnect, context);
    sim.authority.now = () => Date.now() + 2_592_001_000;
    try {
      const error = await platformFailure(pinterestConnect.accounts(tokens, context));
      expect(error.kind).toBe('disconnected');
      expect(error.message).toBe('Authentication failed.');
    } finally {
      sim.authority.now = Date.now;
    }
  });
});
