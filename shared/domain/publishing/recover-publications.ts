import type { Types } from 'mongoose';
import { dateOrderedPages } from '../../db/date-ordered-pages.ts';
import { threadFilters } from '../../db/equality-queries.ts';
import { failThread, type PublishDeps } from './publish-thread.ts';
import type { PublishJobs } from './publish-jobs.ts';

export interface RecoveryDeps extends PublishDeps {
  jobs: PublishJobs;
  /** Re-queues one post gets before it is failed, so a post that kills its worker cannot loop. */
  maxRecoveries: number;
}

/**
 * settled: nothing left to publish (published, failed, draft or deleted); pending: its job is
 * waiting, delayed or running; requeued: put back in the queue; failed: out of recoveries.
 */
export type RecoveryOutcome = 'settled' | 'pending' | 'requeued' | 'failed';

/**
 * Settles a post whose job is gone or finished while parts of it are still queued: a job that
 * stalled too often, that failed while MongoDB was away, or that Redis lost. The post is put
 * back in the queue, which is safe because a publish resumes after the last part saved and
 * repeats the part in flight with the same idempotency key; after `maxRecoveries` re-queues it
 * is failed with a notification instead.
 */
export async function recoverPublication(deps: RecoveryDeps, postId: string): Promise<RecoveryOutcome> {
  // The queue first, the database second: a job that settles the post in between is then seen
  // as settled rather than as lost.
  if ((await deps.jobs.presence(postId)) === 'pending') return 'pending';
  const root = await deps.db.posts.findOne({ _id: postId, rootPostId: null, deletedAt: null }).lean();
  if (root === null) return 'settled';
  const queued = await Promise.all(threadFilters(root._id)
    .map((part) => deps.db.posts.exists({ ...part, deletedAt: null, state: 'QUEUE' })));
  if (queued.every((found) => found === null)) return 'settled';

  // Posts stored before the counter existed have no field: none so far.
  const recoveries = typeof root.publishRecoveries === 'number' ? root.publishRecoveries : 0;
  if (recoveries >= deps.maxRecoveries) {
    await failThread(deps, postId, new Error(`publishing was interrupted ${recoveries + 1} times before it could `
      + 'finish (the worker publishing it stopped, or its job was lost); SPS stopped retrying it. '
      + 'Schedule it again to retry'));
    return 'failed';
  }
  await deps.db.posts.updateOne({ _id: root._id }, { $inc: { publishRecoveries: 1 } });
  await deps.jobs.requeue({ organizationId: root.organizationId.toString(), postId });
  return 'requeued';
}

/** A queued part as the sweep reads it. */
interface DuePart {
  _id: Types.ObjectId;
  rootPostId?: Types.ObjectId | null;
  publishDate: Date;
}

export interface SweepResult {
  /** Posts whose job was looked at. */
  checked: number;
  requeued: string[];
  failed: string[];
  errors: { postId: string; error: unknown }[];
}

/**
 * The recovery sweep (ARCHITECTURE rule 2): every post with a part still queued and due for
 * longer than `graceMs` is checked against the queue, in batches in publish-date order, and
 * recovered when its job is gone. Thread parts count too, because a thread whose first part
 * is out stays queued in its later parts. Uses the {state, publishDate} index.
 */
export async function sweepLostPublications(
  deps: RecoveryDeps,
  options: { graceMs: number; batchSize: number },
): Promise<SweepResult> {
  const cutoff = new Date(deps.now().getTime() - options.graceMs);
  const result: SweepResult = { checked: 0, requeued: [], failed: [], errors: [] };
  const seenRoots = new Set<string>();
  const due = (from: Date | null) => (from === null ? { $lte: cutoff } : { $gte: from, $lte: cutoff });
  const duePages = dateOrderedPages<DuePart>(
    (from, limit) => deps.db.posts
      .find({ state: 'QUEUE', deletedAt: null, publishDate: due(from) })
      .sort({ publishDate: 1, _id: 1 }).limit(limit).select({ _id: 1, rootPostId: 1, publishDate: 1 }).lean(),
    (part) => part.publishDate,
    options.batchSize,
  );
  for await (const page of duePages) {
    const roots = [...new Set(page.map((part) => (part.rootPostId ?? part._id).toString()))]
      .filter((id) => !seenRoots.has(id));
    for (const id of roots) seenRoots.add(id);
    const outcomes = await Promise.allSettled(roots.map((postId) => recoverPublication(deps, postId)));
    outcomes.forEach((outcome, index) => {
      const postId = roots[index] ?? '';
      result.checked += 1;
      if (outcome.status === 'rejected') result.errors.push({ postId, error: outcome.reason });
      else if (outcome.value === 'requeued') result.requeued.push(postId);
      else if (outcome.value === 'failed') result.failed.push(postId);
    });
  }
  return result;
}
