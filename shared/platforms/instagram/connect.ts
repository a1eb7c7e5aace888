import {
  facebookLoginProvider, longLivedUserToken, managedPages, publishablePage,
} from '../meta/facebook-login.ts';
import type { OAuthConnect, VerifiedAccount } from '../kit/platform-connect.ts';

const platform = 'instagram';

/**
 * Reading the account and publishing (instagram_basic, instagram_content_publish), commenting,
 * since later parts become comments (instagram_manage_comments), and finding the account
 * through the Pages it is linked to (pages_show_list, pages_read_engagement; business_management
 * when the Page belongs to a business portfolio).
 */
export const instagramScopes = [
  'instagram_basic',
  'instagram_content_publish',
  'instagram_manage_comments',
  'pages_show_list',
  'pages_read_engagement',
  'business_management',
] as const;

export const instagramConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => facebookLoginProvider(platform, app, instagramScopes),

  /**
   * One channel per Instagram professional account linked to a Page the user may publish to.
   * Its token is that Page's token: Meta's Instagram Platform overview accepts a Facebook User
   * or Page token with Facebook Login, and a Page token read with the long-lived user token
   * never expires, where the user token itself dies after 60 days with nothing to renew it.
   */
  async accounts(tokens, context) {
    const userToken = await longLivedUserToken(platform, tokens, context);
    const fields = 'id,name,access_token,tasks,instagram_business_account{id,username,name,profile_picture_url}';
    const pages = await managedPages(platform, userToken.accessToken, fields, context);
    const accounts: VerifiedAccount[] = [];
    for (const page of pages.filter(publishablePage)) {
      const account = page.instagram_business_account;
      if (account === undefined) continue;
      accounts.push({
        accountId: account.id,
        name: account.name ?? account.username ?? page.name,
        username: account.username ?? null,
        picture: account.profile_picture_url ?? null,
        instanceUrl: null,
        accessToken: page.access_token,
        refreshToken: null,
        expiresAt: null,
      });
    }
    return { pick: true, accounts };
  },
};
