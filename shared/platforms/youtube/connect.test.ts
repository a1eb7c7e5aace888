import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  startGoogleSimulator, type RunningGoogleSimulator,
} from '../../../test/simulators/google/google-simulator.ts';
import { authorizeAndConnect, refreshWith } from '../../../test/simulators/kit/oauth-dance.ts';
import { formBody } from '../../../test/simulators/kit/simulator-server.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext } from '../kit/platform-connect.ts';
import { youtubeConnect } from './connect.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';

const redirectUri = 'https://sps.example/channels/callback/youtube';


/** The form of the last token request the simulator received. */
function lastTokenForm(google: RunningGoogleSimulator): URLSearchParams {
  const request = google.received.filter((received) => received.path === '/token').at(-1);
  expect(request).toBeDefined();
  return request === undefined ? new URLSearchParams() : formBody(request);
}

describe('YouTube connect against the Google simulator', () => {
  let google: RunningGoogleSimulator;
  let context: ConnectContext;

  beforeAll(async () => {
    google = await startGoogleSimulator({
      creator: {
        channels: [
          { id: 'UC-ada', title: 'Ada Films', customUrl: '@adafilms', thumbnail: 'https://yt3.ggpht.com/ada.jpg' },
        ],
        businessAccounts: [],
      },
      brand: {
        channels: [
          { id: 'UC-one', title: 'One', customUrl: '@one', thumbnail: 'https://yt3.ggpht.com/one.jpg' },
          { id: 'UC-two', title: 'Two', customUrl: '@two', thumbnail: 'https://yt3.ggpht.com/two.jpg' },
        ],
        businessAccounts: [],
      },
      nochannel: { channels: [], businessAccounts: [] },
    });
    const { clientId, clientSecret, url } = google;
    const app = { clientId, clientSecret, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null };
    context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
  });
  afterAll(async () => { await google.close(); });
  beforeEach(() => {
    google.authority.consentingUser = 'creator';
    google.authority.now = Date.now;
  });

  it('asks Google for offline access to upload, read the channel and fill playlists, with PKCE', async () => {
    const { authorizeUrl } = await authorizeAndConnect(youtubeConnect, context, redirectUri);

    expect(authorizeUrl.pathname).toBe('/o/oauth2/v2/auth');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(google.clientId);
    expect(authorizeUrl.searchParams.get('scope')).toBe(
      'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly '
        + 'https://www.googleapis.com/auth/youtube.force-ssl',
    );
    expect(authorizeUrl.searchParams.get('access_type')).toBe('offline');
    expect(authorizeUrl.searchParams.get('prompt')).toBe('consent');
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    const exchange = lastTokenForm(google);
    expect(exchange.get('client_secret')).toBe(google.clientSecret);
    expect(exchange.get('code_verifier')).toMatch(/^[\w-]{43}$/);
  });

  it('reads the channel the tokens act for', async () => {
    const { tokens, authorized } = await authorizeAndConnect(youtubeConnect, context, redirectUri);

    expect(tokens.refreshToken).toMatch(/^rt-/);
    expect(tokens.expiresAt?.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
    expect(authorized).toEqual({
      pick: false,
      accounts: [{
        accountId: 'UC-ada',
        name: 'Ada Films',
        username: '@adafilms',
        picture: 'https://yt3.ggpht.com/ada.jpg',
        instanceUrl: null,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        expiresAt: tokens.expiresAt,
      }],
    });
    const read = google.received.at(-1);
    expect(read?.path).toBe('/youtube/v3/channels');
    expect(read?.query.get('part')).toBe('snippet');
    expect(read?.query.get('mine')).toBe('true');
  });

  it('offers a picker when the account holds several channels', async () => {
    google.authority.consentingUser = 'brand';
    const { authorized } = await authorizeAndConnect(youtubeConnect, context, redirectUri);

    expect(authorized.pick).toBe(true);
    expect(authorized.accounts.map((account) => account.accountId)).toEqual(['UC-one', 'UC-two']);
  });

  it('says so when the Google account has no channel', async () => {
    google.authority.consentingUser = 'nochannel';
    const error = await platformFailure(authorizeAndConnect(youtubeConnect, context, redirectUri));

    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/has no YouTube channel/);
  });

  it('shows Google’s refusal of a wrong client secret', async () => {
    const wrong = { ...context, app: { ...context.app, clientSecret: 'not-the-secret' } };
    const error = await platformFailure(authorizeAndConnect(youtubeConnect, wrong, redirectUri));

    expect(error.kind).toBe('permanent');
    expect(error.httpStatus).toBe(401);
    expect(error.message).toBe('Unauthorized (invalid_client)');
  });

  it('refuses a code used once already', async () => {
    await authorizeAndConnect(youtubeConnect, context, redirectUri);
    const form = lastTokenForm(google);
    const client = { clientId: google.clientId, clientSecret: google.clientSecret };
    const again = { code: form.get('code') ?? '', redirectUri, codeVerifier: form.get('code_verifier') };
    const provider = youtubeConnect.provider(context.app);
    const error = await platformFailure(exchangeAuthorizationCode(provider, client, again, { timeoutMs: 2_000 }));

    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Bad Request (invalid_grant)');
  });

  it('renews the access token and keeps the refresh token Google does not rotate', async () => {
    const { tokens } = await authorizeAndConnect(youtubeConnect, context, redirectUri);
    const renewed = await refreshWith(youtubeConnect, context, tokens.refreshToken ?? '');

    expect(renewed.accessToken).not.toBe(tokens.accessToken);
    expect(renewed.refreshToken).toBe(tokens.refreshToken);
    const again = await refreshWith(youtubeConnect, context, tokens.refreshToken ?? '');
    expect(again.accessToken).not.toBe(renewed.accessToken);
  });

  it('calls a revoked or unknown refresh token disconnected', async () => {
    const error = await platformFailure(refreshWith(youtubeConnect, context, 'rt-unknown'));

    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Token has been expired or revoked. (invalid_grant)');
  });

  it('is refused by the API once the hour of the access token has passed', async () => {
    const { tokens } = await authorizeAndConnect(youtubeConnect, context, redirectUri);
    google.authority.now = () => Date.now() + 3_600_000;
    const error = await platformFailure(youtubeConnect.accounts(tokens, context));

    expect(error.kind).toBe('disconnected');
    expect(error.httpStatus).toBe(401);
    expect(error.message).toMatch(/^Request had invalid authentication credentials.* \(UNAUTHENTICATED\)$/);
  });
});
