import type { AdapterOptions, ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { LinkedinApi } from '../linkedin-family/linkedin-http.ts';
import { defaultProcessingWait, type ProcessingWait } from '../linkedin-family/linkedin-media.ts';
import { linkedinPosts, type LinkedinAuthor } from '../linkedin-family/linkedin-posts.ts';
import { linkedinPageConnect } from './connect.ts';
import { readLinkedinPageCredential } from './credential.ts';
import { pageFollowers, pagePostStatistics } from './page-statistics.ts';

const provider = 'linkedin-page';

/**
 * A LinkedIn Page's posts: linkedin-posts.ts with the organization as author, always public; the
 * channel's credential carries the member's token and the organization. How a part is published
 * exactly once is described there (a Page's posts and comments can be read with
 * r_organization_social, so a retry always finds what a lost attempt made). Analytics: followers,
 * and each post's impressions, clicks, likes, comments and shares.
 */
export function createLinkedinPageAdapter(
  options: AdapterOptions,
  app: PlatformApp,
  wait: ProcessingWait = defaultProcessingWait,
): PlatformAdapter {
  const api = new LinkedinApi(provider, app.apiUrl, options.timeoutMs);

  function authorOf(channel: ChannelCredentials): Promise<LinkedinAuthor> {
    const page = readLinkedinPageCredential(channel.accessToken);
    return Promise.resolve({ author: page.organization, accessToken: page.accessToken });
  }

  const posts = linkedinPosts({ api, authorOf, allowVisibility: false, wait });
  return {
    provider,
    ...posts,
    tools: {
      /** The Pages the channel's member administers, as the connect picker offers them. */
      async organizations(channel) {
        const page = readLinkedinPageCredential(channel.accessToken);
        const context = { app, timeoutMs: options.timeoutMs, userHosts: options.userHosts };
        const tokens = { accessToken: page.accessToken, refreshToken: null, expiresAt: null };
        const { accounts } = await linkedinPageConnect.accounts(tokens, context);
        return accounts.map(({ accountId, name, username }) => ({ id: accountId, name, vanityName: username }));
      },
    },
    analytics: {
      account: (channel) => pageFollowers(api, readLinkedinPageCredential(channel.accessToken)),
      post: (channel, releaseId) => pagePostStatistics(api, readLinkedinPageCredential(channel.accessToken), releaseId),
    },
  };
}
