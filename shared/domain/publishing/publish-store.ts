// The publish path's reads and writes of post documents, with the driver: every publish makes
// them, and Mongoose's query building cost about as much CPU as the driver's own work. The
// filters are plain equalities on ObjectIds: there is nothing to cast.
import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { Post } from '../../db/models/post.ts';
import type { RecentReads } from '../../cache/recent-reads.ts';
import type { StoredChannel } from '../channels/channel-tokens.ts';
import type { OrganizationEndpoints, WebhookEvents } from '../webhooks/webhook-outbox.ts';

/** A post part as read for publishing. */
export type ThreadPart = Post & { _id: Types.ObjectId };

/** What a publish reads before it calls the platform. */
export interface ThreadReads {
  root: ThreadPart | null;
  /** The parts after the root, in order. */
  replies: ThreadPart[];
  /** The channel the job names, not yet checked against the post (null when the job names none). */
  hintedChannel: StoredChannel | null;
  endpoints: OrganizationEndpoints | null;
}

/**
 * One round trip before the platform is called: the root, the channel the job names (a post
 * never changes channel) and the organization's webhook endpoints, together, the last two as a
 * recent publish read them if one did (`publishReadReuseMs`); then the replies,
 * only when the root has some (or was stored before it counted them). Most posts have one part.
 */
export async function readThread(
  deps: { db: Database; webhooks: WebhookEvents; recentChannels: RecentReads<StoredChannel> },
  rootId: Types.ObjectId,
  hints: { channelId: Types.ObjectId | null; organizationId: string | undefined },
): Promise<ThreadReads> {
  const { posts } = deps.db;
  const [root, hintedChannel, endpoints] = await Promise.all([
    posts.collection.findOne<ThreadPart>({ _id: rootId, rootPostId: null, deletedAt: null }),
    readHintedChannel(deps, hints.channelId),
    hints.organizationId === undefined ? null : deps.webhooks.endpointsOf(hints.organizationId),
  ]);
  const replies = root === null || root.replyCount === 0
    ? []
    : await posts.collection.find<ThreadPart>({ rootPostId: rootId, deletedAt: null }).sort({ position: 1 }).toArray();
  return { root, replies, hintedChannel, endpoints };
}

/** The channel the job names, as a recent publish of the same channel read it, else read now. */
function readHintedChannel(
  deps: { db: Database; recentChannels: RecentReads<StoredChannel> },
  channelId: Types.ObjectId | null,
): Promise<StoredChannel | null> | null {
  if (channelId === null) return null;
  const channels = deps.db.channels.collection;
  return deps.recentChannels.get(
    channelId.toHexString(),
    () => channels.findOne<StoredChannel>({ _id: channelId, deletedAt: null }),
  );
}

/** Records the platform's answer for a part; `updatedAt` by hand, as Mongoose's timestamps would. */
export async function savePublishedPart(
  db: Database,
  partId: Types.ObjectId,
  result: { releaseId: string; releaseURL: string },
  publishedAt: Date,
): Promise<void> {
  await db.posts.collection.updateOne({ _id: partId }, {
    $set: {
      releaseId: result.releaseId,
      releaseURL: result.releaseURL,
      publishedAt,
      state: 'PUBLISHED',
      error: null,
      updatedAt: publishedAt,
    },
  });
}
