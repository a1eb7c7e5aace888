import { z } from 'zod';
import { refreshAccessToken } from '../kit/oauth2.ts';
import type { OAuth2Provider } from '../kit/oauth2-provider.ts';
import type { OAuthConnect, PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';

/**
 * X connects with OAuth 2.0 Authorization Code and PKCE (its only user grant), as a confidential
 * client (HTTP Basic at the token endpoint). Facts: ../shared/platforms/oauth-majors.md, section 1.
 */
function xProvider(app: PlatformApp): OAuth2Provider {
  return {
    platform: 'x',
    authorizeUrl: `${app.authUrl}/i/oauth2/authorize`,
    tokenUrl: `${app.tokenUrl}/2/oauth2/token`,
    // media.write for the v2 media upload; offline.access is what makes X send a refresh token.
    scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
    pkce: true,
    clientAuthentication: 'basic',
    refreshable: true,
  };
}

const problemBody = z.object({ title: z.string().optional(), detail: z.string().optional() }).loose();

/** X's API refusals are problem details: `detail` says most, `title` names the kind. */
function xProblemMessage(body: unknown): string | undefined {
  const parsed = problemBody.safeParse(body);
  if (!parsed.success) return undefined;
  return parsed.data.detail ?? parsed.data.title;
}

const me = z.object({
  data: z.object({
    id: z.string().min(1),
    name: z.string(),
    username: z.string().min(1),
    profile_image_url: z.string().optional(),
  }),
});

export const xConnect: OAuthConnect = {
  kind: 'oauth2',
  provider: xProvider,

  async accounts(tokens, context) {
    const body = await platformRequest({
      provider: 'x',
      method: 'GET',
      url: `${context.app.apiUrl}/2/users/me?user.fields=profile_image_url`,
      headers: { Authorization: `Bearer ${tokens.accessToken}` },
      timeoutMs: context.timeoutMs,
      errorMessage: xProblemMessage,
    });
    const parsed = me.safeParse(body);
    if (!parsed.success) {
      throw new PlatformError({ kind: 'permanent', provider: 'x', message: 'X answered /2/users/me without a user' });
    }
    const user = parsed.data.data;
    return {
      pick: false,
      accounts: [{
        accountId: user.id,
        name: user.name === '' ? user.username : user.name,
        username: user.username,
        picture: user.profile_image_url ?? null,
        instanceUrl: null,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        expiresAt: tokens.expiresAt,
      }],
    };
  },

  /**
   * The RFC 6749 refresh grant, with X's wording of a refusal read right: X answers a used or
   * revoked refresh token with 400 `invalid_request` ("Value passed for the token was invalid."),
   * not `invalid_grant`, so the kit alone would call it permanent instead of asking the user to
   * reconnect. Refresh tokens rotate: the one returned replaces the one spent.
   */
  async refresh(refreshToken, context) {
    const { clientId, clientSecret } = context.app;
    if (clientId === null) {
      throw new PlatformError({ kind: 'retryable', provider: 'x', message: 'X_CLIENT_ID is not set' });
    }
    const client = { clientId, clientSecret };
    try {
      const options = { timeoutMs: context.timeoutMs, now: context.now?.() };
      return await refreshAccessToken(xProvider(context.app), client, refreshToken, options);
    } catch (error) {
      if (error instanceof PlatformError && error.kind === 'permanent' && error.httpStatus === 400) {
        const { message } = error;
        throw new PlatformError({ kind: 'disconnected', provider: 'x', message, httpStatus: 400, cause: error });
      }
      throw error;
    }
  },
};
