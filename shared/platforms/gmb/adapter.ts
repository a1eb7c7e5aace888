import type { AdapterOptions, ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { removedEvenIfGone } from '../kit/platform-removal.ts';
import { readGmbCredential } from './credential.ts';
import { GmbApi, provider } from './gmb-api.ts';
import { localPostUrl } from './gmb-local-post.ts';
import { locationCounters } from './gmb-performance.ts';
import { localPostsPage, localPostsPath, publishLocalPost } from './gmb-publish.ts';
import { gmbTools } from './gmb-tools.ts';

/** What localPosts.create names a post: `accounts/{a}/locations/{l}/localPosts/{id}`. */
const localPostName = /^accounts\/[^/]+\/locations\/[^/]+\/localPosts\/[^/]+$/;

/**
 * Publishes local posts to the Business Profile location a channel was connected to
 * (design-blogging-business.md, section 7): STANDARD, EVENT, OFFER (and ALERT) posts with a
 * call-to-action, the post's Markdown as plain text, and at most one photo Google fetches from
 * its public URL (gmb-local-post.ts). Exactly once rests on a send mark and a look-up of the
 * location's posts (gmb-publish.ts). There are no comments (`replies: 'none'`): a second part
 * is refused at POST /posts. Analytics are the location's Performance API counters; Google
 * offers no post-level insights any more (gmb-performance.ts).
 */
export function createGmbAdapter(
  options: AdapterOptions,
  app: Pick<PlatformApp, 'apiUrl'>,
  now: () => number = Date.now,
): PlatformAdapter {
  const apiFor = (channel: ChannelCredentials): GmbApi => new GmbApi(
    app.apiUrl,
    readGmbCredential(channel.accessToken).accessToken,
    { timeoutMs: options.timeoutMs, refreshable: true },
  );

  return {
    provider,

    async publish(input) {
      const target = readGmbCredential(input.channel.accessToken);
      const post = await publishLocalPost(apiFor(input.channel), target, input);
      return { releaseId: post.name, releaseURL: localPostUrl(post) };
    },

    comment() {
      // validate-post.ts refuses a second part for `replies: 'none'`; this is the last guard.
      const message = 'Google Business Profile posts have no comments or threads: SPS publishes one part only';
      return Promise.reject(new PlatformError({ kind: 'permanent', provider, message }));
    },

    /**
     * localPosts.delete (business.manage): DELETE /v4/{name} of the post's resource name. A post
     * of a location Google removed is gone with it: the 404 counts as removed.
     */
    async remove(channel, { releaseId }) {
      if (!localPostName.test(releaseId)) {
        throw new PlatformError({ kind: 'permanent', provider, message: `${releaseId} is not a local post's name` });
      }
      await removedEvenIfGone(() => apiFor(channel).request({
        method: 'DELETE', service: 'mybusiness', path: `/v4/${releaseId}`,
      }));
    },

    async recentContent(channel) {
      const path = localPostsPath(readGmbCredential(channel.accessToken));
      const { localPosts = [] } = await localPostsPage(apiFor(channel), { path, size: '20' });
      return localPosts.map((post) => ({ id: post.name, url: localPostUrl(post) }));
    },

    tools: gmbTools(apiFor),

    analytics: {
      account(channel) {
        return locationCounters(apiFor(channel), readGmbCredential(channel.accessToken).location, now());
      },
      // v4 localPosts.reportInsights is deprecated and the Performance API reads locations only.
      post: () => Promise.resolve([]),
    },
  };
}
