import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { LogEvent } from '../../logging/events.ts';
import type { Logger } from '../../logging/logger.ts';
import type { WebhookEvents } from '../webhooks/webhook-outbox.ts';
import { failureCategoryOf } from './failure-category.ts';

/**
 * Tells the organization (post.retrying) that a publish attempt failed and the job will run
 * again: the attempt itself is already saved on its part (failed-attempts.ts). Never throws: it
 * runs after the job was handed back for its retry, which must happen whatever this finds.
 */
export async function tellRetrying(
  deps: { db: Database; webhooks: WebhookEvents },
  postId: string,
  failure: Error,
  nextAttemptAt: Date | null,
  logger: Logger,
): Promise<void> {
  try {
    if (!Types.ObjectId.isValid(postId)) return;
    const root = await deps.db.posts.findOne(
      { _id: new Types.ObjectId(postId), rootPostId: null },
      { organizationId: 1, group: 1, channelId: 1 },
    ).lean();
    if (root === null) return;
    const channel = await deps.db.channels.findOne({ _id: root.channelId }, { provider: 1 }).lean();
    await deps.webhooks.emit(root.organizationId.toString(), 'post.retrying', {
      postId,
      group: root.group,
      channelId: root.channelId.toString(),
      provider: channel?.provider ?? 'unknown',
      error: failure.message,
      category: failureCategoryOf(failure),
      nextAttemptAt: nextAttemptAt?.toISOString() ?? null,
    });
  } catch (error) {
    logger.warn(
      { event: LogEvent.webhookNotRecorded, postId, webhookEvent: 'post.retrying', err: error },
      'could not tell that the post will be retried; the retry goes ahead',
    );
  }
}
