import { randomUUID } from 'node:crypto';
import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { PostState } from '../../db/models/post.ts';
import { DomainError, type ErrorDetail } from '../../errors.ts';
import type { PublishScheduler } from './publish-scheduler.ts';

export type CreatePostType = 'draft' | 'schedule' | 'now';

export interface MediaReference {
  id: string;
  path: string;
  alt?: string | undefined;
  thumbnail?: string | undefined;
}

export interface PostPartInput {
  content: string;
  /** Minutes after the previous part; ignored on the first part. */
  delay?: number | undefined;
  image: MediaReference[];
}

export interface ChannelPostInput {
  integration: { id: string };
  group?: string | undefined;
  settings?: Record<string, unknown> | undefined;
  value: PostPartInput[];
}

export interface CreatePostsInput {
  type: CreatePostType;
  /** Required for `schedule`; `now` and `draft` default to the current time. */
  date?: Date | undefined;
  tags: { value: string; label: string }[];
  posts: ChannelPostInput[];
}

export interface CreatedPost {
  postId: string;
  integration: string;
}

export interface CreatePostsDeps {
  db: Database;
  scheduler: PublishScheduler;
  now: () => Date;
}

/**
 * Stores one post per channel entry (its first part plus thread parts) and, unless it is a
 * draft, schedules its publication. Validation covers what this layer owns: ownership of the
 * channels and media, and that every part says something.
 */
export async function createPosts(deps: CreatePostsDeps, organizationId: string, input: CreatePostsInput): Promise<CreatedPost[]> {
  const { db } = deps;
  const orgObjectId = new Types.ObjectId(organizationId);
  if (input.type === 'schedule' && input.date === undefined) {
    throw new DomainError('validation_failed', 'a scheduled post needs a date', [{ path: 'date', message: 'required when type is "schedule"' }]);
  }
  const publishDate = input.type === 'schedule' && input.date !== undefined ? input.date : (input.date ?? deps.now());

  const problems: ErrorDetail[] = [];
  input.posts.forEach((post, postIndex) => {
    post.value.forEach((part, partIndex) => {
      if (part.content.trim() === '' && part.image.length === 0) {
        problems.push({ path: `posts.${postIndex}.value.${partIndex}.content`, message: 'each part needs content or media' });
      }
    });
  });
  if (problems.length > 0) throw new DomainError('validation_failed', 'some post parts are empty', problems);

  const channelIds = [...new Set(input.posts.map((post) => post.integration.id))];
  const validIds = channelIds.filter((id) => Types.ObjectId.isValid(id) && /^[0-9a-f]{24}$/i.test(id));
  const channels = await db.channels.find({ _id: { $in: validIds }, organizationId: orgObjectId, deletedAt: null }).lean();
  const known = new Map(channels.map((channel) => [channel._id.toString(), channel]));
  const unknown = input.posts
    .map((post, index) => ({ index, id: post.integration.id }))
    .filter(({ id }) => !known.has(id.toLowerCase()));
  if (unknown.length > 0) {
    throw new DomainError(
      'not_found',
      `channel ${unknown.map(({ id }) => JSON.stringify(id)).join(', ')} was not found in your organization`,
      unknown.map(({ index }) => ({ path: `posts.${index}.integration.id`, message: 'not a channel of your organization' })),
    );
  }

  const mediaIds = [...new Set(input.posts.flatMap((post) => post.value.flatMap((part) => part.image.map((image) => image.id))))];
  if (mediaIds.length > 0) {
    const found = await db.media.find({ _id: { $in: mediaIds.filter((id) => /^[0-9a-f]{24}$/i.test(id)) }, organizationId: orgObjectId, status: 'ready' }).lean();
    const foundIds = new Set(found.map((media) => media._id.toString()));
    const missing = mediaIds.filter((id) => !foundIds.has(id.toLowerCase()));
    if (missing.length > 0) {
      throw new DomainError('unknown_media', `media ${missing.map((id) => JSON.stringify(id)).join(', ')} is not in your media library; upload it first and use the returned id and path`);
    }
  }

  const state: PostState = input.type === 'draft' ? 'DRAFT' : 'QUEUE';
  const requestGroup = randomUUID();
  const created: { rootId: Types.ObjectId; channelId: string; documentIds: Types.ObjectId[] }[] = [];
  const documents = input.posts.flatMap((post) => {
    const rootId = new Types.ObjectId();
    const documentIds: Types.ObjectId[] = [];
    created.push({ rootId, channelId: post.integration.id.toLowerCase(), documentIds });
    return post.value.map((part, position) => {
      const _id = position === 0 ? rootId : new Types.ObjectId();
      documentIds.push(_id);
      return {
        _id,
        organizationId: orgObjectId,
        channelId: new Types.ObjectId(post.integration.id),
        group: post.group ?? requestGroup,
        rootPostId: position === 0 ? null : rootId,
        position,
        content: part.content,
        media: part.image.map((image) => ({ id: image.id, path: image.path, alt: image.alt ?? null, thumbnail: image.thumbnail ?? null })),
        settings: post.settings ?? {},
        tags: input.tags,
        publishDate,
        delayMinutes: position === 0 ? 0 : (part.delay ?? 0),
        state,
      };
    });
  });
  await db.posts.insertMany(documents, { ordered: true });

  if (state === 'QUEUE') {
    try {
      for (const post of created) {
        await deps.scheduler.schedule({ organizationId, postId: post.rootId.toString(), publishAt: publishDate });
      }
    } catch (error) {
      // Without a job the post would never publish, and the caller would retry: undo and say so.
      // Cancelling is best effort: a job that survives finds no post and is skipped by the worker.
      await Promise.allSettled(created.map((post) => deps.scheduler.cancel(post.rootId.toString())));
      await db.posts.deleteMany({ _id: { $in: created.flatMap((post) => post.documentIds) } });
      throw new DomainError('service_unavailable', 'the post could not be queued for publishing; nothing was saved, try again', undefined, { cause: error });
    }
  }
  return created.map((post) => ({ postId: post.rootId.toString(), integration: post.channelId }));
}
