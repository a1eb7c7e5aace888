import { z } from 'zod';
import type { OAuth2Provider } from '../kit/oauth2-provider.ts';
import type { ConnectContext, OAuthConnect, UserTokens } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { instanceLimitsResponse } from './instance-limits.ts';
import { mastodonErrorMessage } from './mastodon-error-message.ts';

const provider = 'mastodon';

/** What publishing needs: post statuses with media, read the account and its recent statuses. */
const scopes = ['read:accounts', 'read:statuses', 'write:statuses', 'write:media'] as const;

const registeredApp = z.object({ client_id: z.string().min(1), client_secret: z.string().min(1) });

const account = z.object({
  id: z.string().min(1),
  username: z.string(),
  acct: z.string(),
  display_name: z.string().optional(),
  avatar: z.string().optional(),
});

function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `the Mastodon instance answered with ${what}`);
}

/**
 * Mastodon runs on thousands of servers: SPS registers itself as an app on the user's instance
 * (`POST /api/v1/apps`, once per instance, kept by the api) and then runs OAuth there, with PKCE
 * (Mastodon 4.3+ verifies it; older instances ignore the parameters). Tokens live until revoked.
 */
export const mastodonConnect: OAuthConnect = {
  kind: 'oauth2',

  provider(app): OAuth2Provider {
    return {
      platform: provider,
      authorizeUrl: `${app.authUrl}/oauth/authorize`,
      tokenUrl: `${app.tokenUrl}/oauth/token`,
      scopes,
      pkce: true,
      clientAuthentication: 'body',
      refreshable: false,
    };
  },

  async registerClient(serverUrl, redirectUri, context) {
    const body = await platformRequest({
      provider,
      serverName: 'the Mastodon instance',
      method: 'POST',
      url: `${serverUrl}/api/v1/apps`,
      json: { client_name: 'SPS', redirect_uris: redirectUri, scopes: scopes.join(' ') },
      timeoutMs: context.timeoutMs,
      userHost: context.userHosts,
      errorMessage: mastodonErrorMessage,
    });
    const parsed = registeredApp.safeParse(body);
    if (!parsed.success) throw unreadable('an app registration');
    return { clientId: parsed.data.client_id, clientSecret: parsed.data.client_secret };
  },

  async accounts(tokens: UserTokens, context: ConnectContext) {
    const serverUrl = context.app.apiUrl;
    const body = await platformRequest({
      provider,
      serverName: 'the Mastodon instance',
      method: 'GET',
      url: `${serverUrl}/api/v1/accounts/verify_credentials`,
      headers: { Authorization: `Bearer ${tokens.accessToken}` },
      timeoutMs: context.timeoutMs,
      userHost: context.userHosts,
      errorMessage: mastodonErrorMessage,
    });
    const parsed = account.safeParse(body);
    if (!parsed.success) throw unreadable('an account');
    // The instance's own limit, so POST /posts checks what this server accepts, not the default 500.
    const limits = instanceLimitsResponse.safeParse(await platformRequest({
      provider,
      serverName: 'the Mastodon instance',
      method: 'GET',
      url: `${serverUrl}/api/v2/instance`,
      timeoutMs: context.timeoutMs,
      userHost: context.userHosts,
      errorMessage: mastodonErrorMessage,
    }));
    if (!limits.success) throw unreadable('instance information');
    const { id, username, acct, display_name: displayName, avatar } = parsed.data;
    const host = new URL(serverUrl).host;
    return {
      pick: false,
      accounts: [
        {
          accountId: id,
          name: displayName === undefined || displayName === '' ? username : displayName,
          username: acct.includes('@') ? `@${acct}` : `@${acct}@${host}`,
          picture: avatar ?? null,
          instanceUrl: serverUrl,
          accessToken: tokens.accessToken,
          refreshToken: null,
          expiresAt: null,
          textLimit: limits.data.configuration.statuses.max_characters,
        },
      ],
    };
  },
};
