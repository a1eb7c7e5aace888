import { z } from 'zod';
import {
  graphApiVersion,
  graphErrorMessage,
  graphGet,
  longLivedToken,
  renewLongLivedToken,
} from '../meta/meta-graph.ts';
import { readStandardTokens } from '../kit/oauth2.ts';
import type { OAuthConnect, UserTokens } from '../kit/platform-connect.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';

const platform = 'instagram-standalone';

/**
 * Reading the account and publishing (instagram_business_basic,
 * instagram_business_content_publish), and commenting, since later parts become comments
 * (instagram_business_manage_comments).
 */
export const instagramStandaloneScopes = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_comments',
] as const;

/**
 * api.instagram.com answers the code exchange either flat (`{access_token, user_id,
 * permissions}`) or, in Meta's newer pages, wrapped in `data: [...]`; both carry a one-hour token
 * with no `expires_in`.
 */
const wrappedTokens = z.object({ data: z.array(z.unknown()).min(1) });

export function readInstagramLoginTokens(body: unknown, now: Date): UserTokens | null {
  const wrapped = wrappedTokens.safeParse(body);
  return readStandardTokens(wrapped.success ? wrapped.data.data[0] : body, now);
}

/** GET /me on graph.instagram.com: `user_id` is the professional account's id used to publish. */
const profile = z.object({
  user_id: z.union([z.string(), z.number()]).transform(String),
  username: z.string(),
  name: z.string().optional(),
  profile_picture_url: z.string().optional(),
});

export const instagramStandaloneConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => ({
    platform,
    authorizeUrl: `${app.authUrl}/oauth/authorize`,
    tokenUrl: `${app.tokenUrl}/oauth/access_token`,
    scopes: instagramStandaloneScopes,
    scopeSeparator: ',',
    // Instagram Login documents no PKCE; the app secret goes in the token form.
    pkce: false,
    clientAuthentication: 'body',
    readTokens: readInstagramLoginTokens,
    // api.instagram.com refuses as {error_type, code, error_message}, not RFC 6749's shape.
    errorMessage: graphErrorMessage,
    // Tokens expire but are renewed by refresh() below, not by an RFC 6749 refresh grant.
    refreshable: false,
  }),

  /**
   * The code's token lives an hour: it is traded at once for a 60-day one, which is also kept as
   * the refresh token, since `ig_refresh_token` renews a long-lived token with itself.
   */
  async accounts(tokens, context) {
    const longLived = await longLivedToken(platform, 'ig_exchange_token', tokens.accessToken, context);
    const body = await graphGet({
      provider: platform,
      url: `${context.app.apiUrl}/${graphApiVersion}/me`,
      query: { fields: 'user_id,username,name,profile_picture_url', access_token: longLived.accessToken },
      timeoutMs: context.timeoutMs,
      refusal: 'permanent',
    });
    const parsed = profile.safeParse(body);
    if (!parsed.success) {
      throw unreadableAnswer(platform, 'Instagram answered with a profile', { cause: parsed.error });
    }
    const user = parsed.data;
    return {
      pick: false,
      accounts: [
        {
          accountId: user.user_id,
          name: user.name ?? user.username,
          username: user.username,
          picture: user.profile_picture_url ?? null,
          instanceUrl: null,
          accessToken: longLived.accessToken,
          refreshToken: longLived.accessToken,
          expiresAt: longLived.expiresAt,
        },
      ],
    };
  },

  refresh: (refreshToken, context) => renewLongLivedToken(platform, 'ig_refresh_token', refreshToken, context),
};
