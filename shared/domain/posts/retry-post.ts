import { updateThread } from '../../db/equality-queries.ts';
import { DomainError } from '../../errors.ts';
import { hourOf } from './due-bucket.ts';
import { missingReleaseId } from './missing-release-id.ts';
import type { PostChangeDeps } from './post-changes.ts';
import { getPost, type PostWithThread, type StoredPost } from './post-queries.ts';

/** A part the platform never accepted: failed, without a release id (not even `missing`). */
const notOnPlatform = (part: StoredPost): boolean => part.state === 'ERROR' && (part.releaseId ?? null) === null;

/** Why a post has nothing to retry, as a 409 the client can act on; null when it has. */
function refusal(postId: string, root: StoredPost, parts: StoredPost[]): DomainError | null {
  const conflict = (reason: string) => new DomainError('conflict', `post ${postId} ${reason}`);
  if (root.state === 'DRAFT') {
    return conflict('is a draft: schedule it with PUT /posts/:id/status instead');
  }
  const unconfirmed = parts.findIndex((part) => part.releaseId === missingReleaseId);
  if (unconfirmed !== -1) {
    return conflict(`has part ${unconfirmed} that the platform may have published without confirming it; `
      + 'SPS does not send it again by itself: check the account, then link it (PUT /posts/:id/release-id) '
      + 'or schedule the post again');
  }
  if (parts.some((part) => part.state === 'QUEUE')) {
    return conflict('is still queued or being published: there is nothing to retry yet');
  }
  if (!parts.some(notOnPlatform)) return conflict('has nothing to retry: every part is published');
  return null;
}

/** What the retry lock answered: the work's value, or `busy` when another retry of the post holds it. */
export type RetryLockOutcome<T> = { kind: 'ran'; value: T } | { kind: 'busy' };

/** One retry of a post at a time across every api process: a port, so this domain knows nothing of Redis. */
export interface RetryLock {
  exclusive<T>(postId: string, work: () => Promise<T>): Promise<RetryLockOutcome<T>>;
}

export interface RetryDeps extends PostChangeDeps {
  retryLock: RetryLock;
}

/**
 * Publishes again the parts of a thread the platform never accepted, and only those: they go
 * back to the queue (error and checkpoint cleared, as a fresh schedule has them) and the post's
 * usual publish job is queued, which resumes after the last part with a release id, each reply
 * answering the part before it (shared/domain/publishing/publish-thread.ts).
 *
 * Exactly once under concurrent calls: the check and the writes run under the post's retry lock,
 * since a conditional update is not atomic on FerretDB. A second call either finds the lock
 * taken or, after it, the parts queued, and is refused with 409 before it touches the queue.
 */
export async function retryUnpublishedParts(
  deps: RetryDeps,
  organizationId: string,
  postId: string,
): Promise<PostWithThread> {
  // Ownership first: another organization's post is not found, whether a retry of it runs or not.
  const { root } = await getPost(deps.db, organizationId, postId);
  const id = root._id.toString();
  const outcome = await deps.retryLock.exclusive(id, () => requeueFailedParts(deps, organizationId, id));
  if (outcome.kind === 'busy') {
    throw new DomainError('conflict', `post ${postId} is being retried right now: there is nothing more to retry`);
  }
  return getPost(deps.db, organizationId, id);
}

/** Under the post's retry lock: checks there is something to retry, queues it, and queues the job. */
async function requeueFailedParts(deps: RetryDeps, organizationId: string, postId: string): Promise<void> {
  // Read again under the lock: a retry that held it a moment ago has queued the parts since.
  const { root, parts } = await getPost(deps.db, organizationId, postId);
  const refused = refusal(postId, root, parts);
  if (refused !== null) throw refused;

  const now = deps.now();
  // A root never published keeps its date when it is still ahead (the worker waits for it anyway).
  const publishAt = (root.releaseId ?? null) === null && root.publishDate > now ? root.publishDate : now;
  // The due bucket is the job's hour, so the recovery sweep finds the parts if the job is lost. A
  // fresh recovery budget on the root, as a new schedule gets.
  const requeued = { state: 'QUEUE', error: null, failureCategory: null, checkpoint: null, dueHour: hourOf(publishAt) };
  await updateThread(deps.db.posts, root._id, { state: 'ERROR', releaseId: null, deletedAt: null }, { $set: requeued });
  await deps.db.posts.updateOne({ _id: root._id }, { $set: { publishRecoveries: 0 } });

  // The failed run's job is kept under the post's job id: remove it so the add below is not a
  // no-op. `running` means that job has not let go yet (it failed the post a moment ago): the
  // add then changes nothing and the recovery sweep queues the post once the job has finished.
  await deps.scheduler.cancel(postId);
  await deps.scheduler.schedule({ organizationId, postId, channelId: root.channelId.toString(), publishAt });
}
