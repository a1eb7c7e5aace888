import type { Database } from '../../db/database.ts';
import type { PlatformRemoval } from '../../platforms/kit/platform-removal.ts';
import { findPlatformModule } from '../../platforms/platforms.ts';
import type { StoredPost } from '../posts/post-queries.ts';
import type { RemovalJobs } from './removal-jobs.ts';
import { planRemoval, undeclaredRemoval } from './removal-plan.ts';
import { postRemovalView, type PostRemovalView } from './removal-view.ts';

export interface RemovalRequestDeps {
  db: Database;
  removals: RemovalJobs;
}

/** A channel deleted from SPS has no credentials left to act with. */
const channelGone: PlatformRemoval = {
  supported: false, why: 'cannot', reason: 'the channel was removed from SPS, which can no longer act for the account',
};

/**
 * Marks a post's parts deleted with their removal plan (removal-plan.ts) and queues the removal
 * job when a part is queued. If the job cannot be queued, the parts are put back as they were
 * and the error is thrown, so a client retry finds the post and asks again.
 */
export async function deleteWithRemoval(
  deps: RemovalRequestDeps,
  root: StoredPost,
  deletedAt: Date,
): Promise<{ removal: PostRemovalView; queued: boolean }> {
  const [replies, channel] = await Promise.all([
    deps.db.posts.find({ rootPostId: root._id, deletedAt: null }).sort({ position: 1 }).lean(),
    deps.db.channels.findById(root.channelId).lean(),
  ]);
  const parts = [root, ...replies];
  const provider = channel?.provider ?? 'unknown';
  const capability = channel === null || channel.deletedAt !== null
    ? channelGone
    : findPlatformModule(provider)?.removal ?? undeclaredRemoval;
  const plan = planRemoval(parts, capability);
  const written = parts.map((part, index) => {
    const planned = plan[index];
    if (planned === undefined) throw new Error('one planned removal per part');
    return { ...part, deletedAt, removal: { ...planned, at: deletedAt } };
  });
  const queued = plan.some((part) => part.state === 'queued');
  // One `_id` equality per part (a handful), sent together: each part's state differs. The root
  // carries whether a job has work left, for the sweep that queues lost jobs again.
  await Promise.all(written.map(({ _id, removal }) =>
    deps.db.posts.updateOne({ _id }, {
      $set: {
        deletedAt,
        removal: { state: removal.state, method: removal.method, reason: removal.reason, at: deletedAt },
        ...(_id.equals(root._id) ? { removalPending: queued } : {}),
      },
    })));
  if (queued) {
    try {
      await deps.removals.request({ organizationId: root.organizationId.toString(), postId: root._id.toString() });
    } catch (error) {
      await Promise.all(parts.map(({ _id }) =>
        deps.db.posts.updateOne({ _id }, { $set: { deletedAt: null, removal: null, removalPending: false } })));
      throw error;
    }
  }
  const removal = postRemovalView(root, provider, written);
  if (removal === null) throw new Error('a removal plan covers every part');
  return { removal, queued };
}
