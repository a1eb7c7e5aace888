import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startLinkedinSimulator, type LinkedinSimulator,
} from '../../../test/simulators/linkedin/linkedin-simulator.ts';
import { authorizeAndConnect, refreshWith } from '../../../test/simulators/kit/oauth-dance.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { linkedinConnect } from './connect.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';


function contextFor(sim: LinkedinSimulator, clientSecret = sim.clientSecret): ConnectContext {
  return {
    app: { clientId: sim.clientId, clientSecret, apiUrl: sim.url, authUrl: sim.url, tokenUrl: sim.url, botToken: null },
    timeoutMs: 5_000,
    userHosts: connectionPolicyFor(true),
  };
}

const ada = {
  sub: 'yrZCpj2Z12', name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace',
  picture: 'https://media.licdn.com/dms/image/ada/profile-displayphoto-shrink_100_100/0', email: 'ada@example.org',
};

/** A member app (Share on LinkedIn + Sign In with LinkedIn): no refresh token. */
let memberApp: LinkedinSimulator;
/** An app approved for programmatic refresh tokens. */
let partnerApp: LinkedinSimulator;

beforeAll(async () => {
  memberApp = await startLinkedinSimulator();
  partnerApp = await startLinkedinSimulator({ programmaticRefresh: true });
  for (const sim of [memberApp, partnerApp]) {
    sim.addMember(ada);
    sim.authority.consentingUser = ada.sub;
  }
});

afterAll(async () => {
  await memberApp.close();
  await partnerApp.close();
});

describe('linkedin connect', () => {
  it('asks for openid, profile and w_member_social, without PKCE, and sends the secret in the form', async () => {
    const { authorizeUrl } = await authorizeAndConnect(linkedinConnect, contextFor(memberApp));
    expect(authorizeUrl.pathname).toBe('/oauth/v2/authorization');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(memberApp.clientId);
    expect(authorizeUrl.searchParams.get('scope')).toBe('openid profile w_member_social');
    expect(authorizeUrl.searchParams.get('code_challenge')).toBeNull();
    const exchange = memberApp.received.filter((request) => request.path === '/oauth/v2/accessToken').at(-1);
    const form = new URLSearchParams(exchange?.text ?? '');
    expect(form.get('client_id')).toBe(memberApp.clientId);
    expect(form.get('client_secret')).toBe(memberApp.clientSecret);
    expect(exchange?.headers.authorization).toBeUndefined();
  });

  it('reads the member from userinfo: a 60-day token and, for a member app, no refresh token', async () => {
    const startedAt = Date.now();
    const { tokens, authorized } = await authorizeAndConnect(linkedinConnect, contextFor(memberApp));
    expect(authorized.pick).toBe(false);
    expect(authorized.accounts).toEqual([{
      accountId: ada.sub, name: 'Ada Lovelace', username: null, picture: ada.picture, instanceUrl: null,
      accessToken: tokens.accessToken, refreshToken: null, expiresAt: tokens.expiresAt,
    }]);
    const lifetime = (tokens.expiresAt?.getTime() ?? 0) - startedAt;
    expect(lifetime).toBeGreaterThan(5_183_000_000);
    expect(lifetime).toBeLessThanOrEqual(5_184_001_000);
  });

  it('shows LinkedIn\'s refusal of a wrong client secret', async () => {
    const error = await platformFailure(authorizeAndConnect(linkedinConnect, contextFor(memberApp, 'wrong-secret')));
    expect(error.message).toBe('Client authentication failed (invalid_client)');
    expect(error.kind).toBe('permanent');
  });

  it('refuses a code used twice in LinkedIn\'s words', async () => {
    const context = contextFor(memberApp);
    await authorizeAndConnect(linkedinConnect, context);
    const exchange = memberApp.received.filter((request) => request.path === '/oauth/v2/accessToken').at(-1);
    const form = new URLSearchParams(exchange?.text ?? '');
    const again = exchangeAuthorizationCode(
      linkedinConnect.provider(context.app),
      { clientId: memberApp.clientId, clientSecret: memberApp.clientSecret },
      { code: form.get('code') ?? '', redirectUri: form.get('redirect_uri') ?? '', codeVerifier: null },
      { timeoutMs: 5_000 },
    );
    const error = await platformFailure(again);
    expect(error.message).toMatch(/^Unable to retrieve access token: .* code expired\..* \(invalid_request\)$/);
    expect(error.kind).toBe('permanent');
  });

  it('renews a partner app\'s token with the same refresh token, which LinkedIn does not rotate', async () => {
    const context = contextFor(partnerApp);
    const { tokens } = await authorizeAndConnect(linkedinConnect, context);
    expect(tokens.refreshToken).not.toBeNull();
    const renewed = await refreshWith(linkedinConnect, context, tokens.refreshToken ?? '');
    expect(renewed.accessToken).not.toBe(tokens.accessToken);
    expect(renewed.refreshToken).toBe(tokens.refreshToken);
    const read = await linkedinConnect.accounts(renewed, context);
    expect(read.accounts[0]?.accountId).toBe(ada.sub);
  });

  it('calls an unknown refresh token disconnected', async () => {
    const error = await platformFailure(refreshWith(linkedinConnect, contextFor(partnerApp), 'rt-never-issued'));
    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Token has been expired or revoked. (invalid_grant)');
  });

  it('refuses the access token after its 60 days', async () => {
    const context = contextFor(memberApp);
    const { tokens } = await authorizeAndConnect(linkedinConnect, context);
    memberApp.authority.now = () => Date.now() + 5_184_001_000;
    try {
      const error = await platformFailure(linkedinConnect.accounts(tokens, context));
      expect(error.kind).toBe('disconnected');
      expect(error.message).toBe('Invalid access token');
    } finally {
      memberApp.authority.now = Date.now;
    }
  });
});
