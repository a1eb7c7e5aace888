import type { Types } from 'mongoose';
import { dateOrderedPages } from '../../db/date-ordered-pages.ts';
import { dueHourOf, hourOf, hoursFrom } from '../posts/due-bucket.ts';
import type { PublishDeps } from './publish-deps.ts';
import { failThread } from './publish-thread.ts';
import { recordOnFirstUnpublished } from './failed-attempts.ts';
import { PublishInterrupted } from './failure-category.ts';
import type { PublishJobs } from './publish-jobs.ts';

export interface RecoveryDeps extends PublishDeps {
  jobs: PublishJobs;
  /**
   * Re-queues one post gets without a part published in between before it is failed, so a post
   * that kills its worker cannot loop.
   */
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
 * repeats the part in flight with the same idempotency key; after `maxRecoveries` re-queues with
 * no part published in between it is failed with a notification instead.
 */
export async function recoverPublication(deps: RecoveryDeps, postId: string): Promise<RecoveryOutcome> {
  // The queue first, the database second: a job that settles the post in between is then seen
  // as settled rather than as lost.
  if ((await deps.jobs.presence(postId)) === 'pending') return 'pending';
  const root = await deps.db.posts.findOne({ _id: postId, rootPostId: null, deletedAt: null }).lean();
  if (root === null) return 'settled';
  const replies = root.replyCount === 0 ? [] : await deps.db.posts
    .find({ rootPostId: root._id, deletedAt: null }).select({ state: 1, releaseId: 1 }).lean();
  const parts = [root, ...replies];
  if (parts.every((part) => part.state !== 'QUEUE')) return 'settled';

  // A recovery counts against the limit only when no part was published since the last one: a post
  // that keeps killing its worker makes no progress, a thread whose workers keep being replaced does.
  const published = parts.filter((part) => (part.releaseId ?? null) !== null).length;
  // Posts stored before these fields existed have neither: no recovery so far.
  const publishedBefore = typeof root.partsPublishedAtRecovery === 'number' ? root.partsPublishedAtRecovery : 0;
  const counted = typeof root.publishRecoveries === 'number' ? root.publishRecoveries : 0;
  const recoveries = published > publishedBefore ? 0 : counted;
  if (recoveries >= deps.maxRecoveries) {
    const failure = new PublishInterrupted(`publishing was interrupted ${recoveries + 1} times before it could `
      + 'finish (the worker publishing it stopped, or its job was lost); SPS stopped retrying it. '
      + 'Schedule it again to retry');
    await recordOnFirstUnpublished(deps.db, root._id, failure, deps.now());
    await failThread(deps, postId, failure);
    return 'failed';
  }
  // The new job is due now: its bucket moves to this hour, so the sweep still finds the post if
  // this job is lost too, however long ago its date was (shared/domain/posts/due-bucket.ts).
  const dueHour = hourOf(deps.now());
  await deps.db.posts.updateOne({ _id: root._id }, {
    $set: { publishRecoveries: recoveries + 1, partsPublishedAtRecovery: published, dueHour },
  });
  if (root.replyCount !== 0) {
    await deps.db.posts.updateMany({ rootPostId: root._id, state: 'QUEUE' }, { $set: { dueHour } });
  }
  await deps.jobs.requeue({ organizationId: root.organizationId.toString(), postId });
  return 'requeued';
}

/** A queued part as the sweep reads it. */
interface DuePart {
  _id: Types.ObjectId;
  rootPostId?: Types.ObjectId | null;
  publishDate: Date;
}

export interface SweepOptions {
  graceMs: number;
  batchSize: number;
  /**
   * The oldest due bucket to read (hours since the epoch, due-bucket.ts), up to that of the
   * cutoff; null reads every queued post, and first gives a bucket to the queued posts stored
   * before buckets existed.
   */
  fromHour: number | null;
}

export interface SweepResult {
  /** Posts due up to this moment were looked at. */
  cutoff: Date;
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
 * is out stays queued in its later parts.
 *
 * With `fromHour` it reads one due bucket at a time, `{state: 'QUEUE', dueHour}` (index
 * `{state, dueHour}`): equalities, which FerretDB hands PostgreSQL, so it reads the queued posts
 * of those hours and never the future schedule (docs/queries.md). Without, it reads by state and
 * publishDate (index `{state, publishDate}`), which on FerretDB means every queued post.
 */
export async function sweepLostPublications(deps: RecoveryDeps, options: SweepOptions): Promise<SweepResult> {
  const cutoff = new Date(deps.now().getTime() - options.graceMs);
  const result: SweepResult = { cutoff, checked: 0, requeued: [], failed: [], errors: [] };
  const seenRoots = new Set<string>();
  const due = (from: Date | null) => (from === null ? { $lte: cutoff } : { $gte: from, $lte: cutoff });
  const duePages = (dueHour: number | null) => dateOrderedPages<DuePart>(
    (from, limit) => deps.db.posts
      .find({ state: 'QUEUE', ...(dueHour === null ? {} : { dueHour }), deletedAt: null, publishDate: due(from) })
      .sort({ publishDate: 1, _id: 1 }).limit(limit).select({ _id: 1, rootPostId: 1, publishDate: 1 }).lean(),
    (part) => part.publishDate,
    options.batchSize,
  );
  if (options.fromHour === null) await fillDueBuckets(deps, options.batchSize);
  const buckets = options.fromHour === null ? [null] : hoursFrom(options.fromHour, hourOf(cutoff));
  for (const dueHour of buckets) {
    for await (const page of duePages(dueHour)) {
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
  }
  return result;
}

/**
 * Gives every queued part without a due bucket (stored before buckets existed) the one its
 * publishDate puts it in, pages of `batchSize` in `_id` order, each part by `_id`. Once they
 * have one this reads nothing on MongoDB, and the queued posts once on FerretDB.
 */
async function fillDueBuckets(deps: RecoveryDeps, batchSize: number): Promise<void> {
  let after: Types.ObjectId | null = null;
  for (;;) {
    const page: { _id: Types.ObjectId; publishDate: Date }[] = await deps.db.posts
      .find({ state: 'QUEUE', dueHour: null, deletedAt: null, ...(after === null ? {} : { _id: { $gt: after } }) })
      .sort({ _id: 1 }).limit(batchSize).select({ _id: 1, publishDate: 1 }).lean();
    const now = deps.now();
    // `dueHour: null` again: a part queued or moved meanwhile keeps the bucket that write gave it.
    await Promise.all(page.map((part) => deps.db.posts.updateOne(
      { _id: part._id, dueHour: null },
      { $set: { dueHour: dueHourOf(part.publishDate, now) } },
    )));
    const last = page.at(-1);
    if (last === undefined || page.length < batchSize) return;
    after = last._id;
  }
}
