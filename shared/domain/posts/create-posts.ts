import { randomUUID } from 'node:crypto';
import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { threadFilters, updateThread } from '../../db/equality-queries.ts';
import { groupInsertInto } from '../../db/group-insert.ts';
import type { PostState } from '../../db/models/post.ts';
import { DomainError } from '../../errors.ts';
import { postDocuments, type PostFields } from './post-documents.ts';
import { checkPosts, type CheckPostsDeps, type PostsCheck } from './check-posts.ts';
import type { QueueSlotLock } from './queue-slot-lock.ts';
import { dueHourOf } from './due-bucket.ts';
import type { CreatedPost, CreatePostsInput } from './post-input.ts';
import type { PublishScheduler } from './publish-scheduler.ts';
import { takeQueueSlots } from '../channels/find-slot.ts';
import { seriesFields } from './recurrence-series.ts';
import type { PostChangeEventData } from '../webhooks/webhook-events.ts';
import type { WebhookEvents } from '../webhooks/webhook-outbox.ts';
import { shortenRequest, storeShortLinks, type PlannedShortLink } from '../short-links/shorten-links.ts';

export type { CreatedPost, CreatePostsInput } from './post-input.ts';

export interface CreatePostsDeps extends CheckPostsDeps {
  scheduler: PublishScheduler;
  now: () => Date;
  /** post.created and post.updated are told here (webhooks and GET /events). */
  webhooks: WebhookEvents;
  /** Public address of the backend (ending in /api): where `shortLink: true` links point. */
  backendUrl?: string | undefined;
  /** Held per channel while `queue` posts choose and take their slots; without it, none is held. */
  slotLock?: QueueSlotLock | undefined;
}

type PostDocument = ReturnType<typeof postDocuments>[number];

/**
 * Writes parts in the order given. One part, most posts, goes with the parts of concurrent
 * requests in one insert (GroupInsert): the database spends a quarter of the CPU on five posts
 * written together. A thread's parts go in one ordered insert of their own, all or none in order.
 */
async function insertParts(db: Database, parts: PostDocument[]): Promise<void> {
  if (parts.length === 1) await groupInsertInto(db.posts.collection).insert(parts);
  else if (parts.length > 1) await db.posts.collection.insertMany(parts, { ordered: true });
}

/**
 * Creates (or, with `value[0].id`, edits) one post per channel entry: its first part plus thread
 * parts, stored together, then scheduled unless it is a draft. `update` edits content without
 * touching the schedule; `schedule`/`now` on an existing post move its job.
 */
export async function createPosts(
  deps: CreatePostsDeps,
  organizationId: string,
  request: CreatePostsInput,
): Promise<CreatedPost[]> {
  // Shortened before the checks, so text limits count the short address the platform will get.
  const { input, links } = shortenRequest(request, deps.backendUrl);
  // The same checks as a dry run (validate-posts.ts), stopping at the first that fails.
  const checks = await checkPosts(deps, new Types.ObjectId(organizationId), input, 'create');
  const [failure] = checks.failures;
  if (failure !== undefined) throw failure;
  const store = () => storePosts(deps, organizationId, input, checks, links);
  if (input.type !== 'queue' || deps.slotLock === undefined) return store();
  // Choosing free slots and storing the posts that take them is one step per channel: requests
  // queueing on a channel at the same moment would otherwise all choose its next free slot.
  return deps.slotLock.exclusive(checks.checked.map((entry) => entry.channel._id.toHexString()), store);
}

/** What createPosts does once every check passed: the parts stored, their jobs queued, the events told. */
async function storePosts(
  deps: CreatePostsDeps,
  organizationId: string,
  input: CreatePostsInput,
  { checked, existing }: PostsCheck,
  links: PlannedShortLink[][],
): Promise<CreatedPost[]> {
  const { db } = deps;
  const orgId = new Types.ObjectId(organizationId);
  const now = deps.now();
  // `queue`: one free slot per post, none before `date` when given; a post being edited frees its own.
  const queueAfter = input.date !== undefined && input.date > now ? input.date : now;
  const slots = input.type !== 'queue' ? [] : await takeQueueSlots(
    db, orgId, checked.map((entry) => entry.channel._id), queueAfter,
    existing.flatMap((post) => (post === null ? [] : [post._id])),
  );
  const queued = new Map(checked.map((entry, position) => [entry.index, slots[position]]));
  const requestGroup = randomUUID();
  const results: CreatedPost[] = [];
  const created: Types.ObjectId[] = [];
  const toSchedule: { rootId: Types.ObjectId; channelId: Types.ObjectId; publishAt: Date; edited: boolean }[] = [];
  const toTell: { type: 'post.created' | 'post.updated'; data: PostChangeEventData }[] = [];

  for (const entry of checked) {
    const previous = existing[entry.index] ?? null;
    const rootId = previous?._id ?? new Types.ObjectId();
    const state: PostState = input.type === 'update' ? (previous?.state ?? 'DRAFT') : input.type === 'draft' ? 'DRAFT' : 'QUEUE';
    const publishDate = input.type === 'update'
      ? (previous?.publishDate ?? now)
      : input.type === 'now' ? now : (queued.get(entry.index) ?? input.date ?? previous?.publishDate ?? now);
    const fields: PostFields = {
      organizationId: orgId, channelId: entry.channel._id, group: entry.input.group ?? previous?.group ?? requestGroup,
      settings: entry.settings, tags: input.tags, publishDate, dueHour: dueHourOf(publishDate, now), state,
      ...seriesFields(input, previous, rootId, publishDate),
    };
    const parts = postDocuments(entry.input, rootId, fields, () => new Types.ObjectId(), now);
    // Before the parts: a post is never stored with a short link that does not resolve.
    const owner = { organizationId: orgId, postId: rootId, channelId: entry.channel._id };
    await storeShortLinks(db, owner, links[entry.index] ?? [], now);

    if (previous === null) {
      // The root last: an insert cut short by the database going away leaves at most replies
      // without their root, which are never published nor re-queued by the recovery sweep.
      await insertParts(db, [...parts.slice(1), ...parts.slice(0, 1)]);
      created.push(rootId);
    } else {
      if (input.type !== 'update' && (await deps.scheduler.cancel(rootId.toString())) === 'running') {
        throw new DomainError('conflict', `post ${rootId.toString()} is being published right now and cannot be edited`);
      }
      const [root, ...thread] = parts;
      if (root === undefined) throw new Error('a post has at least one part');
      // An edit changes what was given; the part's history (creation, recoveries, checkpoint) stays.
      const { group, settings, tags, publishDate: date, dueHour, state: edited, content, media, replyCount } = root;
      const { seriesId, occurrence, repeat } = root;
      // The count with the root, before the replies change: a crash between the two leaves a count
      // of 0 (the edit wanted no replies; old ones are not published) or a count above 0, and
      // publishing then reads whatever replies are there, as it always did.
      await db.posts.updateOne({ _id: rootId }, {
        $set: {
          group, settings, tags, publishDate: date, dueHour, state: edited, content, media, replyCount, error: null,
          seriesId, occurrence, repeat,
          failureCategory: null,
        },
      });
      await db.posts.deleteMany({ rootPostId: rootId });
      await insertParts(db, thread);
    }
    if (state === 'QUEUE' && input.type !== 'update') {
      toSchedule.push({ rootId, channelId: entry.channel._id, publishAt: publishDate, edited: previous !== null });
    }
    results.push({ postId: rootId.toString(), integration: entry.channel._id.toString() });
    toTell.push({
      type: previous === null ? 'post.created' : 'post.updated',
      data: {
        postId: rootId.toString(), group: fields.group, channelId: entry.channel._id.toString(),
        provider: entry.channel.provider, state, publishDate: publishDate.toISOString(),
      },
    });
  }

  try {
    for (const job of toSchedule) {
      const ids = { postId: job.rootId.toString(), channelId: job.channelId.toString() };
      await deps.scheduler.schedule({ organizationId, ...ids, publishAt: job.publishAt });
    }
  } catch (error) {
    // Without a job a post would never publish, and the caller would retry: new posts are taken
    // back; edited ones are kept as drafts so the edit is not lost. Cancelling is best effort: a
    // job that survives finds no queued post and is skipped by the worker.
    await Promise.allSettled(toSchedule.map((job) => deps.scheduler.cancel(job.rootId.toString())));
    await Promise.all(created.flatMap(threadFilters).map((filter) => db.posts.deleteMany(filter)));
    await db.shortLinks.deleteMany({ postId: { $in: created } });
    const edited = toSchedule.filter((job) => job.edited).map((job) => job.rootId);
    await Promise.all(edited.map((rootId) => updateThread(db.posts, rootId, {}, { $set: { state: 'DRAFT' } })));
    throw new DomainError(
      'queue_unavailable',
      'the post could not be queued for publishing; new posts were not saved'
        + `${edited.length > 0 ? ' and edited posts were kept as drafts' : ''}; try again`,
      undefined,
      { cause: error },
    );
  }
  // Told once stored and queued: a request refused above leaves nothing to tell of.
  await Promise.all(toTell.map(({ type, data }) => deps.webhooks.emit(organizationId, type, data)));
  return results;
}
