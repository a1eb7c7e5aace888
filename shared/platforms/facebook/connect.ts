import type { OAuthConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { facebookLoginProvider, longLivedUserToken, managedPages, publishablePage } from '../meta/facebook-login.ts';

const platform = 'facebook';

/**
 * Listing the Pages (pages_show_list), posting to them (pages_manage_posts, which also covers
 * photos), reading what was posted (pages_read_engagement), uploading videos (publish_video),
 * commenting, since later parts of a post become comments (pages_manage_engagement), and reading
 * a post's media views for analytics (read_insights).
 */
export const facebookScopes = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'publish_video',
  'pages_manage_engagement',
  'read_insights',
] as const;

export const facebookConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => facebookLoginProvider(platform, app, facebookScopes),

  /**
   * A Facebook channel is a Page, not the person: every Page the user may publish to is offered
   * with its own Page token, read with the long-lived user token so that it never expires.
   */
  async accounts(tokens, context) {
    const userToken = await longLivedUserToken(platform, tokens, context);
    const fields = 'id,name,username,access_token,tasks,picture.type(large)';
    const pages = await managedPages(platform, userToken.accessToken, fields, context);
    const accounts = pages.filter(publishablePage).map((page): VerifiedAccount => ({
      accountId: page.id,
      name: page.name,
      username: page.username ?? null,
      picture: page.picture?.data.url ?? null,
      instanceUrl: null,
      accessToken: page.access_token,
      refreshToken: null,
      expiresAt: null,
    }));
    return { pick: true, accounts };
  },
};
