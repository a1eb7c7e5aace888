import { z } from 'zod';
import { jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';
import type { SimulatedPost } from './publishes.ts';
import { refusals, tiktokData } from './tiktok-answers.ts';

/**
 * The Display API's reads of a creator's posts (oauth-majors.md 8.6): `POST /v2/video/query/`
 * (up to 20 ids in `filters.video_ids`) and `POST /v2/video/list/` (newest first, `max_count` up to
 * 20, a `cursor` in create_time milliseconds), each answering only the `fields` asked for.
 * Only posts whose id moderation has exposed are readable.
 */

const videoFields = [
  'id', 'title', 'video_description', 'create_time', 'share_url', 'view_count', 'like_count', 'comment_count',
  'share_count', 'duration', 'cover_image_url', 'embed_link',
] as const;

const queryBody = z.object({ filters: z.object({ video_ids: z.array(z.string()).min(1).max(20) }) });
const listBody = z.object({
  max_count: z.number().int().min(1).max(20).optional(),
  cursor: z.number().int().optional(),
});

function fieldsOf(request: SimulatedRequest): string[] | SimulatedAnswer {
  const fields = (request.query.get('fields') ?? '').split(',').filter((field) => field !== '');
  const unknown = fields.filter((field) => !(videoFields as readonly string[]).includes(field));
  if (fields.length === 0 || unknown.length > 0) {
    return refusals.invalidParams(`Invalid fields: ${unknown.join(',') || '(none)'}`);
  }
  return fields;
}

function video(post: SimulatedPost, fields: string[], username: string): Record<string, unknown> {
  const values: Record<string, unknown> = {
    id: post.id,
    title: post.title,
    video_description: post.media === 'photo' ? post.description : post.title,
    create_time: Math.floor(post.createdAt / 1000),
    share_url: `https://www.tiktok.com/@${username}/video/${post.id}`,
    view_count: post.counters.views,
    like_count: post.counters.likes,
    comment_count: post.counters.comments,
    share_count: post.counters.shares,
    duration: 0,
    cover_image_url: `https://p16-sign.tiktokcdn.com/cover/${post.id}.jpeg`,
    embed_link: `https://www.tiktok.com/player/v1/${post.id}`,
  };
  return Object.fromEntries(fields.map((field) => [field, values[field]]));
}

const readable = (post: SimulatedPost, now: number) => post.publicAt !== null && post.publicAt <= now;

export function queryVideos(request: SimulatedRequest, posts: SimulatedPost[], username: string): SimulatedAnswer {
  const fields = fieldsOf(request);
  if (!Array.isArray(fields)) return fields;
  const body = queryBody.safeParse(jsonBody(request));
  if (!body.success) return refusals.invalidParams('filters.video_ids must list 1 to 20 video ids');
  const now = Date.now();
  const found = posts.filter((post) => readable(post, now) && body.data.filters.video_ids.includes(post.id));
  return tiktokData({ videos: found.map((post) => video(post, fields, username)) });
}

export function listVideos(request: SimulatedRequest, posts: SimulatedPost[], username: string): SimulatedAnswer {
  const fields = fieldsOf(request);
  if (!Array.isArray(fields)) return fields;
  const body = listBody.safeParse(jsonBody(request) ?? {});
  if (!body.success) return refusals.invalidParams('max_count must be 1 to 20');
  const now = Date.now();
  const before = body.data.cursor ?? Number.MAX_SAFE_INTEGER;
  // Later posts first, also among posts made in the same millisecond.
  const newest = posts.filter((post) => readable(post, now) && post.createdAt < before)
    .reverse().sort((a, b) => b.createdAt - a.createdAt);
  const page = newest.slice(0, body.data.max_count ?? 10);
  return tiktokData({
    videos: page.map((post) => video(post, fields, username)),
    cursor: page.at(-1)?.createdAt ?? 0,
    has_more: newest.length > page.length,
  });
}
