import { updateThread } from '../../db/equality-queries.ts';
import type { Database } from '../../db/database.ts';
import type { PostState } from '../../db/models/post.ts';
import { DomainError, notFound } from '../../errors.ts';
import { checkChannelPosts } from './check-channel-posts.ts';
import { hourOf } from './due-bucket.ts';
import type { ChannelPostInput } from './post-input.ts';
import { findOwnedPost, getPost, type PostWithThread, type StoredPost } from './post-queries.ts';
import type { PublishScheduler } from './publish-scheduler.ts';
import type { MediaReach } from '../../platforms/media-reach.ts';
import type { WebhookEvents } from '../webhooks/webhook-outbox.ts';
import { tellPostChanges } from './post-events.ts';
import { makeNextOccurrence } from './recurrence-series.ts';
import { deleteWithRemoval } from '../removal/request-removal.ts';
import { tellPostRemoved } from '../removal/removal-event.ts';
import type { RemovalJobs } from '../removal/removal-jobs.ts';
import type { PostRemovalView } from '../removal/removal-view.ts';
import { missingReleaseId } from './missing-release-id.ts';

export interface PostChangeDeps {
  db: Database;
  scheduler: PublishScheduler;
  now: () => Date;
  mediaReach?: MediaReach;
  /** post.updated and post.deleted are told here (webhooks and GET /events). */
  webhooks: WebhookEvents;
  /** Where deleting with onPlatform=true queues the removal from the platform; without it, refused. */
  removals?: RemovalJobs;
}


async function cancelOrRefuse(scheduler: PublishScheduler, postId: string): Promise<void> {
  if ((await scheduler.cancel(postId)) === 'running') {
    throw new DomainError('conflict', `post ${postId} is being published right now; try again in a moment`);
  }
}

/**
 * Removes a post with its thread parts and cancels its job. With `onPlatform`, its published parts
 * are also queued for removal from the platform (shared/domain/removal/) and the answer holds each
 * part's plan; post.deleted is then told once they are settled, with their outcome.
 */
export async function deletePost(
  deps: PostChangeDeps,
  organizationId: string,
  postId: string,
  options: { onPlatform?: boolean } = {},
): Promise<{ id: string; deleted: true; removal?: PostRemovalView }> {
  const root = await findOwnedPost(deps.db, organizationId, postId);
  await cancelOrRefuse(deps.scheduler, root._id.toString());
  const deletedAt = deps.now();
  if (options.onPlatform === true) {
    if (deps.removals === undefined) throw new Error('deleting on the platform needs the removals queue');
    const { removal, queued } = await deleteWithRemoval({ db: deps.db, removals: deps.removals }, root, deletedAt);
    if (root.state === 'QUEUE' || root.state === 'DRAFT') await makeNextOccurrence(deps, root, deletedAt);
    if (!queued) await tellPostRemoved(deps.webhooks, root, removal, deletedAt);
    return { id: root._id.toString(), deleted: true, removal };
  }
  await updateThread(deps.db.posts, root._id, {}, { $set: { deletedAt } });
  // An occurrence deleted alone: its series goes on with the next one. A published or failed one
  // made it already when it settled.
  if (root.state === 'QUEUE' || root.state === 'DRAFT') await makeNextOccurrence(deps, root, deletedAt);
  await tellPostChanges(deps, 'post.deleted', [root], deletedAt);
  return { id: root._id.toString(), deleted: true };
}

/**
 * Removes every post of a group; posts being published at this very moment are left and listed.
 * With `onPlatform`, each deleted post is taken off its platform as deletePost does, one removal
 * per post (channel) in the answer.
 */
export async function deleteGroup(
  deps: PostChangeDeps,
  organizationId: string,
  group: string,
  options: { onPlatform?: boolean } = {},
): Promise<{ group: string; deleted: number; skipped: string[]; removals?: PostRemovalView[] }> {
  const roots = await deps.db.posts.find({ organizationId, group, rootPostId: null, deletedAt: null }).lean();
  if (roots.length === 0) throw notFound(`post group ${JSON.stringify(group)}`);
  const skipped: string[] = [];
  const deleted: typeof roots = [];
  const removals: PostRemovalView[] = [];
  const deletedAt = deps.now();
  for (const root of roots) {
    if ((await deps.scheduler.cancel(root._id.toString())) === 'running') {
      skipped.push(root._id.toString());
      continue;
    }
    if (options.onPlatform === true) {
      if (deps.removals === undefined) throw new Error('deleting on the platform needs the removals queue');
      const { removal, queued } = await deleteWithRemoval({ db: deps.db, removals: deps.removals }, root, deletedAt);
      if (!queued) await tellPostRemoved(deps.webhooks, root, removal, deletedAt);
      removals.push(removal);
      continue;
    }
    await updateThread(deps.db.posts, root._id, {}, { $set: { deletedAt } });
    deleted.push(root);
  }
  await tellPostChanges(deps, 'post.deleted', deleted, deletedAt);
  if (options.onPlatform === true) return { group, deleted: removals.length, skipped, removals };
  return { group, deleted: deleted.length, skipped };
}

/**
 * A draft was stored without the platform's rules (POST /posts checks them only for posts that
 * will publish): check them now, as POST /posts would, so a post that cannot publish is refused
 * here with the reason instead of failing in the worker. Returns the settings as the platform
 * parsed them.
 */
async function checkBeforeScheduling(
  db: Database,
  root: StoredPost,
  mediaReach: MediaReach | undefined,
): Promise<Record<string, unknown>> {
  const parts = [root, ...await db.posts.find({ rootPostId: root._id, deletedAt: null }).sort({ position: 1 }).lean()];
  const { __type: _provider, ...settings } = (root.settings ?? {}) as Record<string, unknown>;
  const input: ChannelPostInput = {
    integration: { id: root.channelId.toString() },
    settings,
    value: parts.map((part) => ({
      content: part.content,
      delay: part.delayMinutes,
      image: part.media.map((media) => ({
        id: media.id, path: media.path, alt: media.alt ?? undefined, thumbnail: media.thumbnail ?? undefined,
      })),
    })),
  };
  try {
    const [checked] = await checkChannelPosts(db, root.organizationId, 'schedule', [input], { mediaReach });
    if (checked === undefined) throw new Error('one post in, one checked post out');
    return checked.settings;
  } catch (error) {
    // The checks name paths of a POST /posts body (posts.0.value.1.content); here there is one post.
    if (!(error instanceof DomainError)) throw error;
    const unprefix = (text: string): string => text.replaceAll('posts.0.', '');
    const details = error.details?.map((detail) => ({ path: unprefix(detail.path), message: detail.message }));
    throw new DomainError(error.code, `the post cannot be scheduled: ${unprefix(error.message)}`, details);
  }
}

/** `draft` takes a post out of the schedule; `schedule` puts it back at its date (or now, if that has passed). */
export async function changePostStatus(deps: PostChangeDeps, organizationId: string, postId: string, status: 'draft' | 'schedule'): Promise<{ id: string; state: PostState }> {
  const root = await findOwnedPost(deps.db, organizationId, postId);
  // An unconfirmed part (release id `missing`, failed) may be sent again once the user has checked.
  const unconfirmed = root.state === 'ERROR' && root.releaseId === missingReleaseId;
  if (root.state === 'PUBLISHED' || (root.releaseId !== null && !unconfirmed)) {
    throw new DomainError('conflict', `post ${postId} is already published`);
  }
  if (unconfirmed) {
    await updateThread(deps.db.posts, root._id, { releaseId: missingReleaseId, state: 'ERROR' }, {
      $set: { releaseId: null, checkpoint: null },
    });
  }
  const id = root._id.toString();
  if (status === 'draft') {
    await cancelOrRefuse(deps.scheduler, id);
    await updateThread(deps.db.posts, root._id, { releaseId: null }, { $set: { state: 'DRAFT' } });
    await tellPostChanges(deps, 'post.updated', [{ ...root, state: 'DRAFT' }]);
    return { id, state: 'DRAFT' };
  }
  const settings = await checkBeforeScheduling(deps.db, root, deps.mediaReach);
  const publishAt = root.publishDate > deps.now() ? root.publishDate : deps.now();
  // A fresh schedule gets a fresh recovery budget (shared/domain/publishing/recover-publications.ts),
  // and fresh checkpoints: handles and attempt marks of a failed run would mislead the new one. The
  // due bucket is the job's hour, so the sweep finds the post even when its date is long past.
  await updateThread(deps.db.posts, root._id, { releaseId: null }, {
    $set: {
      state: 'QUEUE', error: null, failureCategory: null, settings, publishRecoveries: 0, checkpoint: null,
      dueHour: hourOf(publishAt),
    },
  });
  // A failed post keeps its finished job under the same id: clear it so the new one is added.
  await cancelOrRefuse(deps.scheduler, id);
  await deps.scheduler.schedule({ organizationId, postId: id, channelId: root.channelId.toString(), publishAt });
  await tellPostChanges(deps, 'post.updated', [{ ...root, state: 'QUEUE' }]);
  return { id, state: 'QUEUE' };
}

/** Ties a post whose release id is `missing` to the platform item the user picked. */
export async function setReleaseId(deps: PostChangeDeps, organizationId: string, postId: string, releaseId: string): Promise<PostWithThread> {
  const root = await findOwnedPost(deps.db, organizationId, postId);
  if (root.releaseId !== missingReleaseId) {
    throw new DomainError('not_missing', `post ${postId} already has its release id; only posts whose release id is "missing" can be given one`);
  }
  await deps.db.posts.updateOne({ _id: root._id }, { $set: { releaseId, state: 'PUBLISHED' } });
  return getPost(deps.db, organizationId, postId);
}
