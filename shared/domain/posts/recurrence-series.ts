import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { derivedObjectId } from '../../db/derived-object-id.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import { updateThread } from '../../db/equality-queries.ts';
import { DomainError } from '../../errors.ts';
import { scheduleOfChannel } from '../channels/posting-schedule.ts';
import { dueHourOf } from './due-bucket.ts';
import { postDocuments, type PostDocument, type PostFields } from './post-documents.ts';
import type { CreatePostsInput } from './post-input.ts';
import { findOwnedPost, type StoredPost } from './post-queries.ts';
import { nextOccurrence, type Recurrence } from './recurrence-rule.ts';
import type { PublishScheduler } from './publish-scheduler.ts';

/**
 * Recurring posts. Each occurrence of a series is a post of its own; only the next one exists
 * ahead of time (the horizon is one occurrence): it is made when the one before it settles
 * (published, failed, or deleted alone), as a copy of it, so an edit of the upcoming occurrence
 * carries on to the later ones and published ones never change. Its id, and its parts' ids, are
 * derived from the series and the occurrence's time, so making it again (a job run twice, a
 * worker killed after the insert) writes nothing.
 */

export interface OccurrenceDeps {
  db: Database;
  now: () => Date;
  /** Adds the occurrence's publish job; without one, the publication sweep adds it when it falls due. */
  scheduler?: PublishScheduler | undefined;
}

type SeriesFields = Required<Pick<PostFields, 'seriesId' | 'occurrence' | 'repeat'>>;

/** What the request asks of the series, without its start (the post's date). */
function requestedRecurrence(input: CreatePostsInput): Omit<Recurrence, 'startAt'> | null {
  if (input.intervalInDays !== undefined) {
    return { intervalInDays: input.intervalInDays, rule: null, until: null, count: null };
  }
  if (input.repeat === undefined) return null;
  const { rule, until, count } = input.repeat;
  return { intervalInDays: null, rule, until: until ?? null, count: count ?? null };
}

/** A stored `repeat` as the rule module reads it; null when the post is not an occurrence. */
function storedRecurrence(post: Pick<StoredPost, 'repeat'>): Recurrence | null {
  const repeat = post.repeat;
  if (repeat === null || repeat === undefined) return null;
  return {
    intervalInDays: repeat.intervalInDays ?? null,
    rule: repeat.rule ?? null,
    until: repeat.until ?? null,
    count: repeat.count ?? null,
    startAt: repeat.startAt,
  };
}

/**
 * The series fields of a post being created or edited. A new post with a repeat starts a series
 * named by its own id. An edit of an occurrence keeps its series, and a repeat given with it
 * replaces the rule; a date the edit moves becomes the rule's start, so the later occurrences
 * follow the moved one ("this and the following").
 */
export function seriesFields(
  input: CreatePostsInput,
  previous: Pick<StoredPost, 'seriesId' | 'occurrence' | 'repeat' | 'publishDate'> | null,
  rootId: Types.ObjectId,
  publishDate: Date,
): SeriesFields {
  const requested = requestedRecurrence(input);
  const stored = previous === null ? null : storedRecurrence(previous);
  const seriesId = previous?.seriesId ?? rootId.toString();
  const occurrence = previous?.occurrence ?? 1;
  if (requested !== null) return { seriesId, occurrence, repeat: { ...requested, startAt: publishDate } };
  if (stored === null || previous === null) return { seriesId: null, occurrence: null, repeat: null };
  const moved = publishDate.getTime() !== previous.publishDate.getTime();
  return { seriesId, occurrence, repeat: { ...stored, startAt: moved ? publishDate : stored.startAt } };
}

/** Inserts documents that may already be there from an earlier run: those are left as they are. */
async function insertOnce(db: Database, documents: PostDocument[]): Promise<void> {
  if (documents.length === 0) return;
  try {
    await db.posts.collection.insertMany(documents, { ordered: false });
  } catch (error) {
    // Written by an earlier run: the derived ids make the second write a no-op, which is the point.
    if (!isDuplicateKey(error)) throw error;
  }
}

/**
 * Makes the occurrence after `previous` (a root part), unless the series has ended, and queues
 * it. `settledAt` is when `previous` settled, as stored (its publication time), so running this
 * again computes the same occurrence; occurrences due before it are passed over. Answers the
 * occurrence's id, or null when there is none.
 */
export async function makeNextOccurrence(
  deps: OccurrenceDeps,
  previous: StoredPost,
  settledAt: Date,
): Promise<string | null> {
  const recurrence = storedRecurrence(previous);
  const { seriesId, occurrence } = previous;
  if (recurrence === null || seriesId === null || seriesId === undefined || typeof occurrence !== 'number') {
    return null;
  }
  const channel = await deps.db.channels.findById(previous.channelId, { timeZone: 1, postingSlots: 1 }).lean();
  if (channel === null) return null;
  // Read as find-slot reads it: a channel stored before zones existed, or with a zone ICU lost, is UTC.
  const { timeZone } = scheduleOfChannel(channel);
  const next = nextOccurrence(recurrence, timeZone, { at: previous.publishDate, index: occurrence }, settledAt);
  if (next === null) return null;

  const replies = previous.replyCount === 0 ? [] : await deps.db.posts
    .find({ rootPostId: previous._id, deletedAt: null }).sort({ position: 1 }).lean();
  const parts = [previous, ...replies];
  const names = ['post.occurrence', seriesId, next.at.toISOString()];
  const rootId = derivedObjectId(next.at, ...names);
  let position = 0;
  const now = deps.now();
  const documents = postDocuments(
    {
      integration: { id: previous.channelId.toString() },
      value: parts.map((part) => ({
        content: part.content,
        delay: part.delayMinutes,
        image: part.media.map((media) => ({
          id: media.id, path: media.path, alt: media.alt ?? undefined, thumbnail: media.thumbnail ?? undefined,
        })),
      })),
    },
    rootId,
    {
      organizationId: previous.organizationId, channelId: previous.channelId, group: previous.group,
      settings: (previous.settings ?? {}) as Record<string, unknown>,
      tags: previous.tags.map((tag) => ({ value: tag.value, label: tag.label })),
      publishDate: next.at, dueHour: dueHourOf(next.at, now), state: 'QUEUE',
      seriesId, occurrence: next.index, repeat: recurrence,
    },
    () => { position += 1; return derivedObjectId(next.at, ...names, String(position)); },
    now,
  );
  // The root last, as POST /posts writes: a run cut short leaves replies without a root, which
  // nothing publishes, and the next run completes it.
  await insertOnce(deps.db, documents.slice(1));
  await insertOnce(deps.db, documents.slice(0, 1));
  // Queued only while it is still to publish: one deleted or published by an earlier run stays so.
  const pending = await deps.db.posts.exists({ _id: rootId, state: 'QUEUE', deletedAt: null });
  if (pending !== null && deps.scheduler !== undefined) {
    await deps.scheduler.schedule({
      organizationId: previous.organizationId.toString(), postId: rootId.toString(),
      channelId: previous.channelId.toString(), publishAt: next.at,
    });
  }
  return rootId.toString();
}

/** What DELETE /posts/:id?series=true answers besides the post. */
export interface DeletedSeries {
  seriesId: string;
  /** Occurrences not yet published that were deleted, the named one included. */
  deleted: number;
}

/**
 * Ends a series: deletes its occurrences not yet published (queued or drafts), the named one
 * included; published and failed ones stay. 409 while one is being published, as DELETE
 * /posts/:id. Read twice: an occurrence made by a publication that ended meanwhile goes too.
 */
export async function deleteSeries(
  deps: OccurrenceDeps & { scheduler: PublishScheduler },
  organizationId: string,
  postId: string,
): Promise<DeletedSeries> {
  const named = await findOwnedPost(deps.db, organizationId, postId);
  const { seriesId } = named;
  if (seriesId === null || seriesId === undefined) {
    throw new DomainError('validation_failed', `post ${postId} is not an occurrence of a recurring post`, [
      { path: 'series', message: 'only for posts created with intervalInDays or repeat' },
    ]);
  }
  let deleted = 0;
  for (let pass = 0; pass < 2; pass += 1) {
    // Equalities only (docs/queries.md); a series has one or two occurrences not yet settled.
    const occurrences = await deps.db.posts.find({
      organizationId: named.organizationId, seriesId, rootPostId: null, deletedAt: null,
    }, { state: 1 }).lean();
    const unpublished = occurrences.filter(({ state }) => state === 'QUEUE' || state === 'DRAFT');
    for (const occurrence of unpublished) {
      if ((await deps.scheduler.cancel(occurrence._id.toString())) === 'running') {
        throw new DomainError('conflict', `occurrence ${occurrence._id.toString()} of the series is being `
          + 'published right now; try again in a moment');
      }
      await updateThread(deps.db.posts, occurrence._id, {}, { $set: { deletedAt: deps.now() } });
      deleted += 1;
    }
  }
  return { seriesId, deleted };
}
