import { z } from 'zod';
import { graphGet, longLivedToken, renewLongLivedToken } from '../meta/meta-graph.ts';
import type { OAuthConnect } from '../kit/platform-connect.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';

const platform = 'threads';

/**
 * Every Threads call needs threads_basic; posting needs threads_content_publish, and the later
 * parts of a thread are replies to the previous part (threads_manage_replies). Reading our own
 * replies back (threads_read_replies) finds a reply whose publish answer was lost, the analytics
 * read the insights (threads_manage_insights), and deleting a post on the platform takes
 * threads_delete.
 */
export const threadsScopes = [
  'threads_basic', 'threads_content_publish', 'threads_manage_replies', 'threads_read_replies',
  'threads_manage_insights', 'threads_delete',
] as const;

/** The Threads API keeps its own version in the path, apart from the Graph API's. */
export const threadsApiVersion = 'v1.0';

/** GET /v1.0/me: `id` is the Threads user id that publishing posts under. */
const profile = z.object({
  id: z.string(),
  username: z.string(),
  name: z.string().optional(),
  threads_profile_picture_url: z.string().optional(),
});

export const threadsConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => ({
    platform,
    authorizeUrl: `${app.authUrl}/oauth/authorize`,
    tokenUrl: `${app.tokenUrl}/oauth/access_token`,
    scopes: threadsScopes,
    scopeSeparator: ',',
    // Threads documents no PKCE; the Threads app secret goes in the token form.
    pkce: false,
    clientAuthentication: 'body',
    // Tokens expire but are renewed by refresh() below, not by an RFC 6749 refresh grant.
    refreshable: false,
  }),

  /**
   * The code's token lives an hour: it is traded at once for a 60-day one, which is also kept as
   * the refresh token, since `th_refresh_token` renews a long-lived token with itself.
   */
  async accounts(tokens, context) {
    const longLived = await longLivedToken(platform, 'th_exchange_token', tokens.accessToken, context);
    const body = await graphGet({
      provider: platform,
      url: `${context.app.apiUrl}/${threadsApiVersion}/me`,
      query: { fields: 'id,username,name,threads_profile_picture_url', access_token: longLived.accessToken },
      timeoutMs: context.timeoutMs,
      refusal: 'permanent',
    });
    const parsed = profile.safeParse(body);
    if (!parsed.success) {
      throw unreadableAnswer(platform, 'Threads answered with a profile', { cause: parsed.error });
    }
    const user = parsed.data;
    return {
      pick: false,
      accounts: [{
        accountId: user.id,
        name: user.name ?? user.username,
        username: user.username,
        picture: user.threads_profile_picture_url ?? null,
        instanceUrl: null,
        accessToken: longLived.accessToken,
        refreshToken: longLived.accessToken,
        expiresAt: longLived.expiresAt,
      }],
    };
  },

  refresh: (refreshToken, context) => renewLongLivedToken(platform, 'th_refresh_token', refreshToken, context),
};
