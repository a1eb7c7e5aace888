import { z } from 'zod';
import type { AnalyticsCounter, AnalyticsReads } from '../kit/platform-adapter.ts';
import type { PageGraph } from './page-graph.ts';

/**
 * A Page's counters as Graph reports them now: followers and likes on the Page node; reactions,
 * comments and shares on the post, and its lifetime media views (`post_media_view`) and unique
 * viewers (`post_total_media_view_unique`), which replaced the retired impressions metrics. A
 * video's release is the video itself: reactions and comments only (videos have no `shares`).
 * Facts: ../shared/platforms/oauth-majors.md, section 3.6.
 */

const pageCounters = z.object({ followers_count: z.number().optional(), fan_count: z.number().optional() });

const summary = z.object({ summary: z.object({ total_count: z.number() }) });
const postCounters = z.object({
  reactions: summary.optional(),
  comments: summary.optional(),
  // Left out until someone shares the post.
  shares: z.object({ count: z.number() }).optional(),
});

const insights = z.object({
  data: z.array(z.object({ name: z.string(), values: z.array(z.object({ value: z.number() })) })),
});

const insightLabels: Record<string, string> = {
  post_media_view: 'Views',
  post_total_media_view_unique: 'Unique viewers',
};

/** A Page post is `{page-id}_{post-id}`; a video release is the bare video id. */
const isPagePost = (releaseId: string) => releaseId.includes('_');

export function pageAnalytics(graph: PageGraph): AnalyticsReads {
  return {
    async account(channel) {
      const query = { fields: 'followers_count,fan_count' };
      const page = await graph.get('/me', query, channel.accessToken, pageCounters, 'the Page');
      return [
        { label: 'Followers', value: page.followers_count ?? 0 },
        { label: 'Page likes', value: page.fan_count ?? 0 },
      ];
    },

    async post(channel, releaseId) {
      const token = channel.accessToken;
      const post = isPagePost(releaseId);
      const fields = ['reactions.summary(total_count).limit(0)', 'comments.summary(total_count).limit(0)'];
      if (post) fields.push('shares');
      const path = `/${encodeURIComponent(releaseId)}`;
      const raw = await graph.get(path, { fields: fields.join(',') }, token, postCounters, 'the post\'s counters');
      const counters: AnalyticsCounter[] = [
        { label: 'Reactions', value: raw.reactions?.summary.total_count ?? 0 },
        { label: 'Comments', value: raw.comments?.summary.total_count ?? 0 },
      ];
      if (!post) return counters;
      counters.push({ label: 'Shares', value: raw.shares?.count ?? 0 });
      const query = { metric: Object.keys(insightLabels).join(','), period: 'lifetime' };
      const read = await graph.get(`${path}/insights`, query, token, insights, 'the post\'s insights');
      for (const metric of read.data) {
        const label = insightLabels[metric.name];
        if (label !== undefined) counters.push({ label, value: metric.values.at(-1)?.value ?? 0 });
      }
      return counters;
    },
  };
}
