import { derivedObjectId } from '../../db/derived-object-id.ts';
import type { WebhookEvents } from '../webhooks/webhook-outbox.ts';
import type { ChangedPost } from '../posts/post-events.ts';
import type { PostRemovalView } from './removal-view.ts';

/**
 * post.deleted of a post deleted with onPlatform=true, told once its removal is done (every part
 * settled), with each part's outcome. Its id derives from the deletion, so a removal job run
 * again, or the api and a job both finding it done, tells it once.
 */
export async function tellPostRemoved(
  webhooks: WebhookEvents,
  root: ChangedPost,
  removal: PostRemovalView,
  deletedAt: Date,
): Promise<void> {
  const postId = root._id.toString();
  await webhooks.emit(root.organizationId.toString(), 'post.deleted', {
    postId,
    group: root.group,
    channelId: root.channelId.toString(),
    provider: removal.provider,
    state: root.state,
    publishDate: root.publishDate.toISOString(),
    deletedAt: deletedAt.toISOString(),
    removal,
  }, { once: derivedObjectId(deletedAt, 'post-removed', postId) });
}
