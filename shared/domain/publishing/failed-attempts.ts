import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { PublishAttemptData } from '../webhooks/webhook-events.ts';
import { failureCategoryOf, type FailureCategory } from './failure-category.ts';

/** Failed attempts a part keeps, newest last: enough to see a pattern, bounded so a part stays small. */
export const keptAttempts = 10;

/** One failed attempt at a part, as stored on it (shared/db/models/post.ts). */
export interface FailedAttempt {
  at: Date;
  category: FailureCategory;
  /** The platform's message, or SPS's own when it failed before the platform answered. */
  message: string;
  httpStatus: number | null;
}

/** An attempt as read back: the category is whatever string was stored. */
type StoredAttempt = Omit<FailedAttempt, 'category' | 'httpStatus'> & { category: string; httpStatus?: number | null };

/** A part as these functions read it; parts stored before attempts existed have none. */
interface PartAttempts {
  _id: Types.ObjectId;
  attempts?: readonly StoredAttempt[] | null;
}

function storedAttempts(part: PartAttempts): StoredAttempt[] {
  return [...(part.attempts ?? [])];
}

/**
 * Adds a failed attempt to a part, keeping the last `keptAttempts`. The new list is written whole
 * ($set) from the one read with the part, rather than with `$push`'s `$slice`, which FerretDB
 * 1.24 does not take: only the part's one publish job writes it, so nothing is lost between.
 */
export async function recordFailedAttempt(
  db: Database,
  part: PartAttempts,
  failure: Error,
  at: Date,
): Promise<void> {
  const httpStatus = 'httpStatus' in failure && typeof failure.httpStatus === 'number' ? failure.httpStatus : null;
  const attempt: FailedAttempt = { at, category: failureCategoryOf(failure), message: failure.message, httpStatus };
  const attempts = [...storedAttempts(part), attempt].slice(-keptAttempts);
  await db.posts.collection.updateOne({ _id: part._id }, { $set: { attempts } });
}

/**
 * Records a failure that came before any part was sent (the channel gone, media missing, an
 * interrupted publication) on the first part not yet published, the one that could not go.
 */
export async function recordOnFirstUnpublished(
  db: Database,
  rootId: Types.ObjectId,
  failure: Error,
  at: Date,
): Promise<void> {
  const root = await db.posts.findOne({ _id: rootId }, { releaseId: 1, attempts: 1 }).lean();
  if (root === null) return;
  const part = (root.releaseId ?? null) === null
    ? root
    : await db.posts.findOne({ rootPostId: rootId, releaseId: null, deletedAt: null }, { attempts: 1 })
      .sort({ position: 1 }).lean();
  if (part !== null) await recordFailedAttempt(db, part, failure, at);
}

/** The thread's failed attempts, oldest first, the last `keptAttempts` of them, as post.failed tells them. */
export function threadAttempts(
  parts: readonly PartAttempts[],
): PublishAttemptData[] {
  return parts
    .flatMap((part) => storedAttempts(part).map((attempt) => ({ partId: part._id.toString(), attempt })))
    .sort((left, right) => left.attempt.at.getTime() - right.attempt.at.getTime())
    .slice(-keptAttempts)
    .map(({ partId, attempt }) => ({
      partId, at: attempt.at.toISOString(), category: attempt.category, message: attempt.message,
    }));
}
