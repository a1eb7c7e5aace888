import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { PostState } from '../../db/models/post.ts';
import { DomainError, notFound } from '../../errors.ts';
import { findOwnedPost, getPost, type PostWithThread } from './post-queries.ts';
import type { PublishScheduler } from './publish-scheduler.ts';

export interface PostChangeDeps {
  db: Database;
  scheduler: PublishScheduler;
  now: () => Date;
}

/** Release id a platform adapter records when it published but could not tell which item it made. */
export const missingReleaseId = 'missing';

const threadOf = (rootId: Types.ObjectId) => ({ $or: [{ _id: rootId }, { rootPostId: rootId }] });

async function cancelOrRefuse(scheduler: PublishScheduler, postId: string): Promise<void> {
  if ((await scheduler.cancel(postId)) === 'running') {
    throw new DomainError('conflict', `post ${postId} is being published right now; try again in a moment`);
  }
}

/** Removes a post with its thread parts and cancels its job. */
export async function deletePost(deps: PostChangeDeps, organizationId: string, postId: string): Promise<{ id: string; deleted: true }> {
  const root = await findOwnedPost(deps.db, organizationId, postId);
  await cancelOrRefuse(deps.scheduler, root._id.toString());
  await deps.db.posts.updateMany(threadOf(root._id), { $set: { deletedAt: deps.now() } });
  return { id: root._id.toString(), deleted: true };
}

/** Removes every post of a group; posts being published at this very moment are left and listed. */
export async function deleteGroup(deps: PostChangeDeps, organizationId: string, group: string): Promise<{ group: string; deleted: number; skipped: string[] }> {
  const roots = await deps.db.posts.find({ organizationId, group, rootPostId: null, deletedAt: null }).lean();
  if (roots.length === 0) throw notFound(`post group ${JSON.stringify(group)}`);
  const skipped: string[] = [];
  let deleted = 0;
  for (const root of roots) {
    if ((await deps.scheduler.cancel(root._id.toString())) === 'running') {
      skipped.push(root._id.toString());
      continue;
    }
    await deps.db.posts.updateMany(threadOf(root._id), { $set: { deletedAt: deps.now() } });
    deleted += 1;
  }
  return { group, deleted, skipped };
}

/** `draft` takes a post out of the schedule; `schedule` puts it back at its date (or now, if that has passed). */
export async function changePostStatus(deps: PostChangeDeps, organizationId: string, postId: string, status: 'draft' | 'schedule'): Promise<{ id: string; state: PostState }> {
  const root = await findOwnedPost(deps.db, organizationId, postId);
  if (root.state === 'PUBLISHED' || root.releaseId !== null) throw new DomainError('conflict', `post ${postId} is already published`);
  const id = root._id.toString();
  if (status === 'draft') {
    await cancelOrRefuse(deps.scheduler, id);
    await deps.db.posts.updateMany({ ...threadOf(root._id), releaseId: null }, { $set: { state: 'DRAFT' } });
    return { id, state: 'DRAFT' };
  }
  await deps.db.posts.updateMany({ ...threadOf(root._id), releaseId: null }, { $set: { state: 'QUEUE', error: null } });
  const publishAt = root.publishDate > deps.now() ? root.publishDate : deps.now();
  // A failed post keeps its finished job under the same id: clear it so the new one is added.
  await cancelOrRefuse(deps.scheduler, id);
  await deps.scheduler.schedule({ organizationId, postId: id, publishAt });
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
