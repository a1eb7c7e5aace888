import { z } from 'zod';
import { readStandardTokens } from '../kit/oauth2.ts';
import type { OAuthConnect, UserTokens } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { redditUserAgent } from './reddit-api.ts';

/**
 * Reddit connects a "web app" with the authorization-code flow: HTTP Basic at the token endpoint,
 * no PKCE, `duration=permanent` so a refresh token comes with the one-hour access token.
 * Facts: ../shared/platforms/open-and-community.md, section 6.
 */
const grantRefusal = z.object({ error: z.string() }).loose();

/**
 * Reddit answers a refused grant with HTTP 200 and `{"error": "invalid_grant"}` instead of a 400,
 * so the refusal is read here: a dead code or refresh token means the user must authorize again.
 */
function readRedditTokens(body: unknown, now: Date): UserTokens | null {
  const refusal = grantRefusal.safeParse(body);
  if (refusal.success) {
    const kind = refusal.data.error === 'invalid_grant' ? 'disconnected' : 'permanent';
    throw new PlatformError({ kind, provider: 'reddit', message: refusal.data.error, httpStatus: 200 });
  }
  return readStandardTokens(body, now);
}

const redditErrorBody = z.object({ message: z.string() }).loose();

/** The API's refusals: `{"message": "Unauthorized", "error": 401}`. */
function redditErrorMessage(body: unknown): string | undefined {
  const parsed = redditErrorBody.safeParse(body);
  return parsed.success ? parsed.data.message : undefined;
}

const me = z.object({ id: z.string().min(1), name: z.string().min(1), icon_img: z.string().optional() });

/** Reddit escapes `&` in icon URLs and signs a resized copy; the plain image is the path alone. */
function plainIcon(icon: string | undefined): string | null {
  if (icon === undefined || icon === '') return null;
  const url = URL.parse(icon.replace(/&amp;/g, '&'));
  return url === null ? null : `${url.origin}${url.pathname}`;
}

export const redditConnect: OAuthConnect = {
  kind: 'oauth2',
  provider: (app) => ({
    platform: 'reddit',
    authorizeUrl: `${app.authUrl}/api/v1/authorize`,
    tokenUrl: `${app.tokenUrl}/api/v1/access_token`,
    // identity: the profile; submit: posts and comments; read and flair: a subreddit's rules and
    // flairs before posting; mysubreddits: the subreddits offered to post to; history: the
    // account's own posts and comments, where a retry looks for what an earlier attempt made;
    // edit: deleting them (/api/del) when their post is deleted on the platform.
    scopes: ['identity', 'submit', 'read', 'flair', 'mysubreddits', 'history', 'edit'],
    pkce: false,
    clientAuthentication: 'basic',
    authorizeParameters: { duration: 'permanent' },
    readTokens: readRedditTokens,
    refreshable: true,
  }),

  async accounts(tokens, context) {
    const body = await platformRequest({
      provider: 'reddit',
      method: 'GET',
      url: `${context.app.apiUrl}/api/v1/me`,
      headers: {
        Authorization: `bearer ${tokens.accessToken}`,
        'User-Agent': redditUserAgent(context.app.clientId),
      },
      timeoutMs: context.timeoutMs,
      errorMessage: redditErrorMessage,
    });
    const parsed = me.safeParse(body);
    if (!parsed.success) {
      const message = 'Reddit answered /api/v1/me without a user';
      throw new PlatformError({ kind: 'permanent', provider: 'reddit', message });
    }
    const user = parsed.data;
    return {
      pick: false,
      accounts: [{
        accountId: user.id,
        name: user.name,
        username: user.name,
        picture: plainIcon(user.icon_img),
        instanceUrl: null,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        expiresAt: tokens.expiresAt,
      }],
    };
  },
};
