import { z } from 'zod';
import type { AnalyticsCounter } from '../kit/platform-adapter.ts';
import type { TikTokApi } from './tiktok-api.ts';

/**
 * TikTok's counters as SPS reads them (oauth-majors.md 8.6), through the Display API: the
 * account's from `GET /v2/user/info/` (scope user.info.stats), a post's from `POST
 * /v2/video/query/` (scope video.list). TikTok has no impressions, reach or time series there.
 */

const accountStats = z.object({
  user: z.object({
    follower_count: z.number().int().optional(),
    following_count: z.number().int().optional(),
    likes_count: z.number().int().optional(),
    video_count: z.number().int().optional(),
  }),
});

const videoId = z.union([z.string().regex(/^\d+$/), z.number().int()]).transform(String);

const videoCounters = z.object({
  videos: z.array(z.object({
    id: videoId,
    view_count: z.number().int().optional(),
    like_count: z.number().int().optional(),
    comment_count: z.number().int().optional(),
    share_count: z.number().int().optional(),
  })),
});

const recentVideos = z.object({
  videos: z.array(z.object({ id: videoId, share_url: z.string().min(1) })),
});

function counters<T extends Record<string, unknown>>(values: T, labels: readonly (readonly [keyof T, string])[]):
  AnalyticsCounter[] {
  return labels.flatMap(([field, label]) => {
    const value = values[field];
    return typeof value === 'number' ? [{ label, value }] : [];
  });
}

export async function accountCounters(api: TikTokApi): Promise<AnalyticsCounter[]> {
  const fields = 'follower_count,following_count,likes_count,video_count';
  const call = { method: 'GET', path: '/v2/user/info/', query: { fields } } as const;
  const { user } = await api(call, accountStats, 'account counters');
  return counters(user, [
    ['follower_count', 'Followers'], ['following_count', 'Following'], ['likes_count', 'Likes'],
    ['video_count', 'Videos'],
  ]);
}

/** A post's counters; none when TikTok does not list it (private, still in moderation, deleted). */
export async function postCounters(api: TikTokApi, postId: string): Promise<AnalyticsCounter[]> {
  const call = {
    method: 'POST',
    path: '/v2/video/query/',
    query: { fields: 'id,view_count,like_count,comment_count,share_count' },
    json: { filters: { video_ids: [postId] } },
  } as const;
  const { videos } = await api(call, videoCounters, 'post counters');
  const video = videos.find((candidate) => candidate.id === postId);
  if (video === undefined) return [];
  return counters(video, [
    ['view_count', 'Views'], ['like_count', 'Likes'], ['comment_count', 'Comments'], ['share_count', 'Shares'],
  ]);
}

/** The account's latest posts, newest first, to pick a missing release from. */
export async function recentPosts(api: TikTokApi): Promise<{ id: string; url: string }[]> {
  const call = {
    method: 'POST', path: '/v2/video/list/', query: { fields: 'id,share_url' }, json: { max_count: 20 },
  } as const;
  const { videos } = await api(call, recentVideos, 'the account\'s posts');
  return videos.map((video) => ({ id: video.id, url: video.share_url }));
}
