import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { findEachById } from '../../db/equality-queries.ts';
import type { PostChangeEventData } from '../webhooks/webhook-events.ts';
import type { WebhookEvents } from '../webhooks/webhook-outbox.ts';

/** A root part as a change read it, and what it became. */
export interface ChangedPost {
  _id: Types.ObjectId;
  organizationId: Types.ObjectId;
  channelId: Types.ObjectId;
  group: string;
  state: string;
  publishDate: Date;
}

/**
 * Tells post.updated or post.deleted for posts an API call changed (POST /posts tells its own,
 * knowing the channels). The channels are read for their platform, one `_id` each; a channel
 * removed since is `unknown`.
 */
export async function tellPostChanges(
  deps: { db: Database; webhooks: WebhookEvents },
  type: 'post.updated' | 'post.deleted',
  posts: readonly ChangedPost[],
  deletedAt: Date | null = null,
): Promise<void> {
  if (posts.length === 0) return;
  const channels = await findEachById(deps.db.channels, posts.map((post) => post.channelId));
  const providerOf = (post: ChangedPost) =>
    channels.find((channel) => channel._id.equals(post.channelId))?.provider ?? 'unknown';
  await Promise.all(posts.map((post) => {
    const data: PostChangeEventData = {
      postId: post._id.toString(),
      group: post.group,
      channelId: post.channelId.toString(),
      provider: providerOf(post),
      state: post.state,
      publishDate: post.publishDate.toISOString(),
    };
    const organizationId = post.organizationId.toString();
    return type === 'post.deleted'
      ? deps.webhooks.emit(organizationId, type, { ...data, deletedAt: (deletedAt ?? new Date()).toISOString() })
      : deps.webhooks.emit(organizationId, type, data);
  }));
}
