import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { Channel } from '../../db/models/channel.ts';
import type { Post } from '../../db/models/post.ts';
import { asObjectId } from '../../db/object-id.ts';
import { DomainError, notFound } from '../../errors.ts';
import { decodePostListCursor, encodePostListCursor, postPageLimits } from './post-list-cursor.ts';

export type StoredPost = Post & { _id: Types.ObjectId };
export type StoredChannel = Channel & { _id: Types.ObjectId };

/** What a listed post shows of its channel: read alone, not the tokens and settings of every channel. */
export type ListedChannel = Pick<StoredChannel, '_id' | 'provider' | 'name' | 'picture'>;
const listedChannelFields = { provider: 1, name: 1, picture: 1 } as const;

/** Listing is bounded: one request never scans more than a year of posts. */
export const maxListRangeDays = 366;

/** The root post (first part) of a post the organization owns; anything else is "not found". */
export async function findOwnedPost(db: Database, organizationId: string, postId: string): Promise<StoredPost> {
  const id = asObjectId(postId);
  const post = id === null ? null : await db.posts.findOne({ _id: id, organizationId, rootPostId: null, deletedAt: null }).lean();
  if (post === null) throw notFound(`post ${JSON.stringify(postId)}`);
  return post;
}

/** A range to list, and optionally a page of it: `limit` posts after `cursor` (the last page's end). */
export interface PostListRequest {
  startDate: Date;
  endDate: Date;
  customer?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * Root posts in the range, by publish date then id. With `limit` (or `cursor`), one page and the
 * cursor of the next (null after the last); without, the whole range as the contract lists it.
 */
export async function listPosts(
  db: Database,
  organizationId: string,
  range: PostListRequest,
): Promise<{ posts: StoredPost[]; channels: Map<string, ListedChannel>; cursor?: string | null }> {
  if (range.endDate < range.startDate) throw new DomainError('validation_failed', 'endDate must not be before startDate', [{ path: 'endDate', message: 'before startDate' }]);
  if (range.endDate.getTime() - range.startDate.getTime() > maxListRangeDays * 86_400_000) {
    throw new DomainError('validation_failed', `the date range may span at most ${maxListRangeDays} days`, [{ path: 'endDate', message: `more than ${maxListRangeDays} days after startDate` }]);
  }
  const channelFilter: Record<string, unknown> = { organizationId };
  if (range.customer !== undefined) {
    const customerId = asObjectId(range.customer);
    if (customerId === null) return { posts: [], channels: new Map() };
    channelFilter.customerId = customerId;
  }
  const after = range.cursor === undefined ? null : decodePostListCursor(range.cursor);
  const channels: ListedChannel[] = await db.channels.find(channelFilter, listedChannelFields).lean();
  const byId = new Map(channels.map((channel) => [channel._id.toString(), channel]));
  const channelIds = channels.map((channel) => channel._id);
  const live = { organizationId, rootPostId: null, deletedAt: null, channelId: { $in: channelIds } };
  if (range.limit === undefined && after === null) {
    const posts = await db.posts.find({ ...live, publishDate: { $gte: range.startDate, $lte: range.endDate } })
      .sort({ publishDate: 1, _id: 1 }).lean();
    return { posts, channels: byId };
  }
  // One more than the page, to know whether another follows. After a cursor, two indexed reads
  // instead of an $or (docs/queries.md): the rest of the cursor's instant, then what comes later.
  const wanted = (range.limit ?? postPageLimits.max) + 1;
  const sameInstant = after === null ? [] : await db.posts
    .find({ ...live, publishDate: after.publishDate, _id: { $gt: after.id } }).sort({ _id: 1 }).limit(wanted).lean();
  const from = after === null ? { $gte: range.startDate } : { $gt: after.publishDate };
  const later = sameInstant.length >= wanted ? [] : await db.posts
    .find({ ...live, publishDate: { ...from, $lte: range.endDate } }).sort({ publishDate: 1, _id: 1 })
    .limit(wanted - sameInstant.length).lean();
  const found = [...sameInstant, ...later];
  const posts = found.slice(0, wanted - 1);
  const last = posts.at(-1);
  const cursor = found.length < wanted || last === undefined
    ? null
    : encodePostListCursor({ publishDate: last.publishDate, id: last._id });
  return { posts, channels: byId, cursor };
}

export interface PostWithThread {
  root: StoredPost;
  parts: StoredPost[];
  channel: StoredChannel | null;
}

export async function getPost(db: Database, organizationId: string, postId: string): Promise<PostWithThread> {
  const root = await findOwnedPost(db, organizationId, postId);
  // The root is at position 0; its replies are one indexed equality away (no $or: docs/queries.md).
  const [replies, channel] = await Promise.all([
    db.posts.find({ rootPostId: root._id, deletedAt: null }).sort({ position: 1 }).lean(),
    db.channels.findById(root.channelId).lean(),
  ]);
  return { root, parts: [root, ...replies], channel };
}

/**
 * GET /posts/:id: a live post, or one deleted with onPlatform=true, whose parts (deleted with it,
 * at the same instant) show what became of them on the platform. Other deleted posts are not found.
 */
export async function getReadablePost(db: Database, organizationId: string, postId: string): Promise<PostWithThread> {
  const id = asObjectId(postId);
  const root = id === null ? null : await db.posts.findOne({ _id: id, organizationId, rootPostId: null }).lean();
  const readable = root !== null && (root.deletedAt === null || root.removal != null);
  if (!readable) throw notFound(`post ${JSON.stringify(postId)}`);
  const [replies, channel] = await Promise.all([
    db.posts.find({ rootPostId: root._id, deletedAt: root.deletedAt }).sort({ position: 1 }).lean(),
    db.channels.findById(root.channelId).lean(),
  ]);
  return { root, parts: [root, ...replies], channel };
}
