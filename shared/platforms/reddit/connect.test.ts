import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAndConnect, refreshWith } from '../../../test/simulators/kit/oauth-dance.ts';
import { startRedditSimulator, type RedditSimulator } from '../../../test/simulators/reddit/reddit-simulator.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { redditConnect } from './connect.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';


let sim: RedditSimulator;
let context: ConnectContext;

function contextWith(clientSecret: string): ConnectContext {
  return {
    app: {
      clientId: sim.clientId, clientSecret, apiUrl: sim.url, authUrl: sim.url, tokenUrl: sim.url, botToken: null,
    },
    timeoutMs: 5_000,
    userHosts: connectionPolicyFor(true),
  };
}

const spez = {
  id: '1w72',
  name: 'spez',
  icon_img: 'https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_abc.png?width=256&amp;height=256&amp;s=0f1e',
};

beforeAll(async () => {
  sim = await startRedditSimulator();
  sim.addUser(spez);
  sim.authority.consentingUser = spez.id;
  context = contextWith(sim.clientSecret);
});

afterAll(async () => {
  await sim.close();
});

describe('reddit connect', () => {
  it('asks for a permanent authorization with the posting scopes', async () => {
    const { authorizeUrl } = await authorizeAndConnect(redditConnect, context);
    expect(authorizeUrl.pathname).toBe('/api/v1/authorize');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(sim.clientId);
    expect(authorizeUrl.searchParams.get('duration')).toBe('permanent');
    expect(authorizeUrl.searchParams.get('scope')).toBe('identity submit read flair mysubreddits history edit');
    expect(authorizeUrl.searchParams.get('code_challenge')).toBeNull();
    const exchange = sim.received.filter((request) => request.path === '/api/v1/access_token').at(-1);
    expect(exchange?.headers.authorization).toMatch(/^Basic /);
  });

  it('reads the user from /api/v1/me with a descriptive User-Agent', async () => {
    const startedAt = Date.now();
    const { tokens, authorized } = await authorizeAndConnect(redditConnect, context);
    expect(authorized.pick).toBe(false);
    expect(authorized.accounts).toEqual([{
      accountId: '1w72', name: 'spez', username: 'spez',
      picture: 'https://styles.redditmedia.com/t5_3k30p/styles/profileIcon_abc.png', instanceUrl: null,
      accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt,
    }]);
    expect(tokens.refreshToken).not.toBeNull();
    const lifetime = (tokens.expiresAt?.getTime() ?? 0) - startedAt;
    expect(lifetime).toBeGreaterThan(3_590_000);
    expect(lifetime).toBeLessThanOrEqual(3_601_000);
    const read = sim.received.filter((request) => request.path === '/api/v1/me').at(-1);
    expect(read?.headers['user-agent']).toBe(`web:${sim.clientId}:0.1 (Social Publishing Service)`);
  });

  it('is refused by Reddit with a wrong client secret', async () => {
    // Reddit's body is {"message": "Unauthorized", "error": 401}: its words are the message.
    const error = await platformFailure(authorizeAndConnect(redditConnect, contextWith('wrong')));
    expect(error.httpStatus).toBe(401);
    expect(error.message).toBe('Unauthorized');
    expect(error.kind).toBe('permanent');
  });

  it('reads Reddit\'s HTTP 200 refusal of a code used twice', async () => {
    await authorizeAndConnect(redditConnect, context);
    const exchange = sim.received.filter((request) => request.path === '/api/v1/access_token').at(-1);
    const form = new URLSearchParams(exchange?.text ?? '');
    const again = exchangeAuthorizationCode(
      redditConnect.provider(context.app),
      { clientId: sim.clientId, clientSecret: sim.clientSecret },
      { code: form.get('code') ?? '', redirectUri: form.get('redirect_uri') ?? '', codeVerifier: null },
      { timeoutMs: 5_000 },
    );
    const error = await platformFailure(again);
    expect(error.message).toBe('invalid_grant');
    expect(error.httpStatus).toBe(200);
  });

  it('renews the access token; the refresh token stays valid', async () => {
    const { tokens } = await authorizeAndConnect(redditConnect, context);
    const renewed = await refreshWith(redditConnect, context, tokens.refreshToken ?? '');
    expect(renewed.accessToken).not.toBe(tokens.accessToken);
    expect(renewed.refreshToken).toBe(tokens.refreshToken);
    const again = await refreshWith(redditConnect, context, tokens.refreshToken ?? '');
    expect(again.accessToken).not.toBe(renewed.accessToken);
  });

  it('calls an unknown or revoked refresh token disconnected', async () => {
    const unknown = await platformFailure(refreshWith(redditConnect, context, 'rt-never-issued'));
    expect(unknown.kind).toBe('disconnected');
    expect(unknown.message).toBe('invalid_grant');
  });

  it('refuses the access token after its hour', async () => {
    const { tokens } = await authorizeAndConnect(redditConnect, context);
    sim.authority.now = () => Date.now() + 3_601_000;
    try {
      const error = await platformFailure(redditConnect.accounts(tokens, context));
      expect(error.kind).toBe('disconnected');
      expect(error.message).toBe('Unauthorized');
    } finally {
      sim.authority.now = Date.now;
    }
  });
});
