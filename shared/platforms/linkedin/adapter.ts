import { z } from 'zod';
import type { AdapterOptions, ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { LinkedinApi } from '../linkedin-family/linkedin-http.ts';
import { defaultProcessingWait, type ProcessingWait } from '../linkedin-family/linkedin-media.ts';
import { linkedinPosts, type LinkedinAuthor } from '../linkedin-family/linkedin-posts.ts';

const provider = 'linkedin';

const userinfo = z.object({ sub: z.string().min(1) });

/**
 * A member's LinkedIn posts: linkedin-posts.ts with the member as author (urn:li:person:{sub},
 * read from userinfo before anything is uploaded). How a part is published exactly once is
 * described there. No analytics: a member's post and follower statistics need the
 * r_member_postAnalytics / r_member_profileAnalytics products, which SPS does not ask for.
 */
export function createLinkedinAdapter(
  options: AdapterOptions,
  app: Pick<PlatformApp, 'apiUrl'>,
  wait: ProcessingWait = defaultProcessingWait,
): PlatformAdapter {
  const api = new LinkedinApi(provider, app.apiUrl, options.timeoutMs);

  async function authorOf(channel: ChannelCredentials): Promise<LinkedinAuthor> {
    const member = userinfo.safeParse(await api.rest(channel.accessToken, { method: 'GET', path: '/v2/userinfo' }));
    if (!member.success) {
      const message = 'LinkedIn answered userinfo without a member id';
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    return { author: `urn:li:person:${member.data.sub}`, accessToken: channel.accessToken };
  }

  const posts = linkedinPosts({ api, authorOf, allowVisibility: true, wait });
  return { provider, ...posts, tools: {} };
}
