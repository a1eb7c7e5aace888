import { refreshAccessToken } from '../kit/oauth2.ts';
import type { OAuthConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { googleOAuthProvider } from '../google/google-oauth.ts';
import { GmbApi, gmbApiUrl, gmbServiceUrl, provider } from './gmb-api.ts';
import { managedLocations } from './gmb-locations.ts';
import { encodeGmbCredential, encodeGmbRefreshCredential, readGmbRefreshCredential } from './credential.ts';

const scopes = ['https://www.googleapis.com/auth/business.manage'] as const;

export { gmbApiUrl };

/** Locations are listed by the Business Information API, on its own host in production. */
export function businessInformationUrl(apiUrl: string): string {
  return gmbServiceUrl(apiUrl, 'mybusinessbusinessinformation');
}

export const gmbConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => googleOAuthProvider(provider, app, scopes),

  async accounts(tokens, context) {
    const options = { timeoutMs: context.timeoutMs, refreshable: false };
    const api = new GmbApi(context.app.apiUrl, tokens.accessToken, options);
    const targets: VerifiedAccount[] = (await managedLocations(api)).map(({ account, location, title }) => ({
      accountId: location,
      name: title ?? location,
      username: null,
      picture: null,
      instanceUrl: null,
      accessToken: encodeGmbCredential({ accessToken: tokens.accessToken, account, location }),
      refreshToken: tokens.refreshToken === null
        ? null
        : encodeGmbRefreshCredential({ refreshToken: tokens.refreshToken, account, location }),
      expiresAt: tokens.expiresAt,
    }));
    if (targets.length === 0) {
      const message = 'this Google account manages no Business Profile location: add or claim one, then connect again';
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    return { pick: true, accounts: targets };
  },

  /** Google's refresh grant, with the location carried over into the renewed credential. */
  async refresh(refreshToken, context) {
    const held = readGmbRefreshCredential(refreshToken);
    if (held === null) {
      const message = 'the stored Google Business Profile credential names no location: connect the location again';
      throw new PlatformError({ kind: 'disconnected', provider, message });
    }
    const { clientId, clientSecret } = context.app;
    if (clientId === null) {
      throw new PlatformError({ kind: 'retryable', provider, message: 'GMB_CLIENT_ID is not configured' });
    }
    const client = { clientId, clientSecret };
    const renewed = await refreshAccessToken(gmbConnect.provider(context.app), client, held.refreshToken, {
      timeoutMs: context.timeoutMs,
      now: context.now?.(),
    });
    const target = { account: held.account, location: held.location };
    return {
      accessToken: encodeGmbCredential({ accessToken: renewed.accessToken, ...target }),
      refreshToken: encodeGmbRefreshCredential({ refreshToken: renewed.refreshToken ?? held.refreshToken, ...target }),
      expiresAt: renewed.expiresAt,
    };
  },
};
