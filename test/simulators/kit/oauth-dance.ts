import {
  authorizationUrl,
  exchangeAuthorizationCode,
  refreshAccessToken,
} from '../../../shared/platforms/kit/oauth2.ts';
import type {
  ConnectContext,
  OAuthConnect,
  AuthorizedAccounts,
  UserTokens,
} from '../../../shared/platforms/kit/platform-connect.ts';
import { createPkcePair } from '../../../shared/platforms/kit/pkce.ts';

export interface DanceResult {
  /** The authorization URL SPS built, for tests that check its parameters. */
  authorizeUrl: URL;
  tokens: UserTokens;
  authorized: AuthorizedAccounts;
}

/**
 * A whole authorization-code round against a simulator, as the api and a browser would run it:
 * the authorization URL the room's provider builds is followed (the simulator consents at once),
 * the code from the redirect is exchanged, and the room reads the accounts. A refusal anywhere
 * throws: the simulator's redirect error as an Error, the token endpoint's as a PlatformError.
 */
export async function authorizeAndConnect(
  connect: OAuthConnect,
  context: ConnectContext,
  redirectUri = 'https://sps.example/channels/callback/test',
): Promise<DanceResult> {
  const { clientId, clientSecret } = context.app;
  if (clientId === null) throw new Error('the test context needs a client id');
  const client = { clientId, clientSecret };
  const provider = connect.provider(context.app);
  const pkce = provider.pkce ? createPkcePair() : null;
  const authorizeUrl = new URL(
    authorizationUrl(provider, client, { redirectUri, state: 'state-1', codeChallenge: pkce?.challenge ?? null }),
  );
  const consent = await fetch(authorizeUrl, { redirect: 'manual' });
  const location = consent.headers.get('location');
  if (consent.status !== 302 || location === null) {
    throw new Error(`the authorize step answered ${String(consent.status)}: ${await consent.text()}`);
  }
  const back = new URL(location);
  if (back.searchParams.get('state') !== 'state-1') throw new Error('the state did not come back');
  const error = back.searchParams.get('error');
  if (error !== null) throw new Error(`${error}: ${back.searchParams.get('error_description') ?? ''}`);
  const code = back.searchParams.get('code') ?? '';
  const options = { timeoutMs: context.timeoutMs };
  // The whole redirect query, as the api's callback hands it over; the kit sends what the provider declares.
  const callback = Object.fromEntries(back.searchParams);
  const exchange = { code, redirectUri, codeVerifier: pkce?.verifier ?? null, state: 'state-1', callback };
  const tokens = await exchangeAuthorizationCode(provider, client, exchange, options);
  return { authorizeUrl, tokens, authorized: await connect.accounts(tokens, context) };
}

/** Refreshes with the room's provider, as the token lifecycle will. */
export function refreshWith(
  connect: OAuthConnect,
  context: ConnectContext,
  refreshToken: string,
): Promise<UserTokens> {
  const { clientId, clientSecret } = context.app;
  if (clientId === null) throw new Error('the test context needs a client id');
  return refreshAccessToken(connect.provider(context.app), { clientId, clientSecret }, refreshToken, {
    timeoutMs: context.timeoutMs,
  });
}
