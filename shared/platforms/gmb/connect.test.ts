import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  startGoogleSimulator, type RunningGoogleSimulator,
} from '../../../test/simulators/google/google-simulator.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { formBody } from '../../../test/simulators/kit/simulator-server.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { businessInformationUrl, gmbApiUrl, gmbConnect } from './connect.ts';
import { readGmbCredential, readGmbRefreshCredential } from './credential.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';

const redirectUri = 'https://sps.example/channels/callback/gmb';


function lastTokenForm(google: RunningGoogleSimulator): URLSearchParams {
  const request = google.received.filter((received) => received.path === '/token').at(-1);
  expect(request).toBeDefined();
  return request === undefined ? new URLSearchParams() : formBody(request);
}

const locations = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => ({
  name: `locations/${prefix}${String(index + 1)}`, title: `${prefix} shop ${String(index + 1)}`,
}));

describe('Google Business Profile API hosts', () => {
  it('lists locations on the Business Information host in production, on the same base elsewhere', () => {
    expect(businessInformationUrl(gmbApiUrl)).toBe('https://mybusinessbusinessinformation.googleapis.com');
    expect(businessInformationUrl('http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000');
  });
});

describe('Google Business Profile connect against the Google simulator', () => {
  let google: RunningGoogleSimulator;
  let context: ConnectContext;

  beforeAll(async () => {
    google = await startGoogleSimulator({
      owner: {
        channels: [],
        // Three accounts and three locations in one: both lists span pages of two.
        businessAccounts: [
          { name: 'accounts/100', accountName: 'Ada', locations: locations('a', 3) },
          { name: 'accounts/200', accountName: 'Bakery group', locations: locations('b', 1) },
          { name: 'accounts/300', accountName: 'Empty', locations: [] },
        ],
      },
      nobody: { channels: [], businessAccounts: [{ name: 'accounts/900', accountName: 'None', locations: [] }] },
    });
    const { clientId, clientSecret, url } = google;
    const app = { clientId, clientSecret, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null };
    context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
  });
  afterAll(async () => { await google.close(); });
  beforeEach(() => {
    google.authority.consentingUser = 'owner';
    google.authority.now = Date.now;
  });

  it('asks Google for offline business.manage access with PKCE', async () => {
    const { authorizeUrl } = await authorizeAndConnect(gmbConnect, context, redirectUri);

    expect(authorizeUrl.searchParams.get('scope')).toBe('https://www.googleapis.com/auth/business.manage');
    expect(authorizeUrl.searchParams.get('access_type')).toBe('offline');
    expect(authorizeUrl.searchParams.get('prompt')).toBe('consent');
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('offers every location of every account, each with its account kept in the credential', async () => {
    const { tokens, authorized } = await authorizeAndConnect(gmbConnect, context, redirectUri);

    expect(authorized.pick).toBe(true);
    expect(authorized.accounts.map((account) => [account.accountId, account.name])).toEqual([
      ['locations/a1', 'a shop 1'], ['locations/a2', 'a shop 2'], ['locations/a3', 'a shop 3'],
      ['locations/b1', 'b shop 1'],
    ]);
    const bakery = authorized.accounts[3];
    expect(readGmbCredential(bakery?.accessToken ?? '')).toEqual({
      accessToken: tokens.accessToken, account: 'accounts/200', location: 'locations/b1',
    });
    expect(readGmbRefreshCredential(bakery?.refreshToken ?? '')).toEqual({
      refreshToken: tokens.refreshToken, account: 'accounts/200', location: 'locations/b1',
    });
    expect(bakery?.expiresAt).toEqual(tokens.expiresAt);
    const listed = google.received.filter((request) => request.path.endsWith('/locations'));
    expect(listed.every((request) => request.query.get('readMask') === 'name,title')).toBe(true);
  });

  it('says so when the Google account manages no location', async () => {
    google.authority.consentingUser = 'nobody';
    const error = await platformFailure(authorizeAndConnect(gmbConnect, context, redirectUri));

    expect(error.message).toMatch(/manages no Business Profile location/);
  });

  it('shows Google’s refusal of a wrong client secret', async () => {
    const wrong = { ...context, app: { ...context.app, clientSecret: 'not-the-secret' } };
    const error = await platformFailure(authorizeAndConnect(gmbConnect, wrong, redirectUri));

    expect(error.message).toBe('Unauthorized (invalid_client)');
  });

  it('refuses a code used once already', async () => {
    await authorizeAndConnect(gmbConnect, context, redirectUri);
    const form = lastTokenForm(google);
    const client = { clientId: google.clientId, clientSecret: google.clientSecret };
    const again = { code: form.get('code') ?? '', redirectUri, codeVerifier: form.get('code_verifier') };
    const provider = gmbConnect.provider(context.app);
    const error = await platformFailure(exchangeAuthorizationCode(provider, client, again, { timeoutMs: 2_000 }));

    expect(error.message).toBe('Bad Request (invalid_grant)');
  });

  it('renews the token and keeps the location in the renewed credential', async () => {
    const { authorized, tokens } = await authorizeAndConnect(gmbConnect, context, redirectUri);
    const stored = authorized.accounts[1];
    const renewed = await gmbConnect.refresh?.(stored?.refreshToken ?? '', context);

    const access = readGmbCredential(renewed?.accessToken ?? '');
    expect(access.accessToken).not.toBe(tokens.accessToken);
    expect(access).toMatchObject({ account: 'accounts/100', location: 'locations/a2' });
    expect(renewed?.refreshToken).toBe(stored?.refreshToken);
    expect(google.authority.userOf(access.accessToken)).toBe('owner');
  });

  it('calls a revoked refresh token disconnected', async () => {
    const { authorized } = await authorizeAndConnect(gmbConnect, context, redirectUri);
    google.authority.revokeAll();
    const stored = authorized.accounts[0]?.refreshToken ?? '';
    const error = await platformFailure(gmbConnect.refresh?.(stored, context) ?? Promise.resolve());

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Token has been expired or revoked. (invalid_grant)');
  });

  it('calls a refresh token without its location disconnected', async () => {
    const error = await platformFailure(gmbConnect.refresh?.('rt-bare', context) ?? Promise.resolve());

    expect(error.kind).toBe('disconnected');
  });

  it('is refused by the API once the hour of the access token has passed', async () => {
    const { tokens } = await authorizeAndConnect(gmbConnect, context, redirectUri);
    google.authority.now = () => Date.now() + 3_600_000;
    const error = await platformFailure(gmbConnect.accounts(tokens, context));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toMatch(/\(UNAUTHENTICATED\)$/);
  });
});
