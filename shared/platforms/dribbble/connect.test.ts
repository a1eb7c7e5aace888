import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startDribbbleSimulator, type DribbbleSimulator,
} from '../../../test/simulators/dribbble/dribbble-simulator.ts';
import { authorizeAndConnect, refreshWith } from '../../../test/simulators/kit/oauth-dance.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { dribbbleConnect } from './connect.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';


let sim: DribbbleSimulator;
let context: ConnectContext;

function contextWith(clientSecret: string): ConnectContext {
  return {
    app: { clientId: sim.clientId, clientSecret, apiUrl: sim.url, authUrl: sim.url, tokenUrl: sim.url, botToken: null },
    timeoutMs: 5_000,
    userHosts: connectionPolicyFor(true),
  };
}

const player = {
  id: 1, name: 'Dan Cederholm', login: 'simplebits', can_upload_shot: true,
  avatar_url: 'https://cdn.dribbble.com/users/1/avatars/normal/dc.jpg',
};

beforeAll(async () => {
  sim = await startDribbbleSimulator();
  sim.addUser(player);
  sim.addUser({ id: 2, name: '', login: 'prospect', avatar_url: '', can_upload_shot: false });
  sim.authority.consentingUser = '1';
  context = contextWith(sim.clientSecret);
});

afterAll(async () => {
  await sim.close();
});

describe('dribbble connect', () => {
  it('asks for public and upload, and sends the client secret in the token form', async () => {
    const { authorizeUrl } = await authorizeAndConnect(dribbbleConnect, context);
    expect(authorizeUrl.pathname).toBe('/oauth/authorize');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(sim.clientId);
    expect(authorizeUrl.searchParams.get('scope')).toBe('public upload');
    const exchange = sim.received.filter((request) => request.path === '/oauth/token').at(-1);
    const form = new URLSearchParams(exchange?.text ?? '');
    expect(form.get('client_id')).toBe(sim.clientId);
    expect(form.get('client_secret')).toBe(sim.clientSecret);
  });

  it('reads the player from /v2/user; the token never expires and has no refresh token', async () => {
    const { tokens, authorized } = await authorizeAndConnect(dribbbleConnect, context);
    expect(tokens).toMatchObject({ refreshToken: null, expiresAt: null });
    expect(authorized).toEqual({
      pick: false,
      accounts: [{
        accountId: '1', name: 'Dan Cederholm', username: 'simplebits', picture: player.avatar_url, instanceUrl: null,
        accessToken: tokens.accessToken, refreshToken: null, expiresAt: null,
      }],
    });
    expect(dribbbleConnect.provider(context.app).refreshable).toBe(false);
  });

  it('refuses an account that cannot upload shots', async () => {
    sim.authority.consentingUser = '2';
    try {
      const error = await platformFailure(authorizeAndConnect(dribbbleConnect, context));
      expect(error.message).toBe('the Dribbble account prospect cannot upload shots');
      expect(error.kind).toBe('permanent');
    } finally {
      sim.authority.consentingUser = '1';
    }
  });

  it('shows Dribbble\'s refusal of a wrong client secret', async () => {
    const error = await platformFailure(authorizeAndConnect(dribbbleConnect, contextWith('wrong')));
    expect(error.message).toMatch(/^Client authentication failed due to unknown client.* \(invalid_client\)$/);
    expect(error.kind).toBe('permanent');
  });

  it('refuses a code used twice', async () => {
    await authorizeAndConnect(dribbbleConnect, context);
    const exchange = sim.received.filter((request) => request.path === '/oauth/token').at(-1);
    const form = new URLSearchParams(exchange?.text ?? '');
    const again = exchangeAuthorizationCode(
      dribbbleConnect.provider(context.app),
      { clientId: sim.clientId, clientSecret: sim.clientSecret },
      { code: form.get('code') ?? '', redirectUri: form.get('redirect_uri') ?? '', codeVerifier: null },
      { timeoutMs: 5_000 },
    );
    const error = await platformFailure(again);
    expect(error.message).toMatch(/^The provided authorization grant is invalid.* \(invalid_grant\)$/);
  });

  it('has no refresh grant to renew with', async () => {
    const error = await platformFailure(refreshWith(dribbbleConnect, context, 'rt-anything'));
    expect(error.message).toMatch(/\(unsupported_grant_type\)$/);
  });

  it('keeps the token valid until the player revokes the app, then it is refused', async () => {
    const { tokens } = await authorizeAndConnect(dribbbleConnect, context);
    sim.authority.now = () => Date.now() + 10 * 365 * 24 * 3600 * 1000;
    try {
      const later = await dribbbleConnect.accounts(tokens, context);
      expect(later.accounts[0]?.accountId).toBe('1');
    } finally {
      sim.authority.now = Date.now;
    }
    sim.authority.revokeAll();
    const error = await platformFailure(dribbbleConnect.accounts(tokens, context));
    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Bad credentials.');
  });
});
