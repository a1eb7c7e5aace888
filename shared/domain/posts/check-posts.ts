import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { Post } from '../../db/models/post.ts';
import { asObjectId } from '../../db/object-id.ts';
import { DomainError } from '../../errors.ts';
import type { MediaReach } from '../../platforms/media-reach.ts';
import { takeQueueSlots } from '../channels/find-slot.ts';
import { inspectChannelPosts, type ChannelFinder, type CheckedChannelPost } from './check-channel-posts.ts';
import type { CreatePostsInput } from './post-input.ts';
import type { MediaImports } from './post-media.ts';

export type ExistingPost = Post & { _id: Types.ObjectId };

/** What checking a POST /posts body reads; `imports` is left out by callers that import nothing. */
export interface CheckPostsDeps extends Partial<MediaImports> {
  db: Database;
  now: () => Date;
  mediaReach?: MediaReach | undefined;
  /** The api's cached channel look-up (check-channel-posts.ts). */
  findChannels?: ChannelFinder | undefined;
}

export interface PostsCheck {
  /** The channel posts whose channel was found: every one of them when no check failed. */
  checked: CheckedChannelPost[];
  /** Per `posts[]` entry, the post `value[0].id` edits, or null for a new post. */
  existing: (ExistingPost | null)[];
  /** Each failed check in the order they run, its problems in `details`; empty when the body can be stored. */
  failures: DomainError[];
}

/** `schedule` needs a date; `update` needs the post to edit named on every channel post. */
function requestFailures(input: CreatePostsInput): DomainError[] {
  const failures: DomainError[] = [];
  if (input.type === 'schedule' && input.date === undefined) {
    failures.push(new DomainError('validation_failed', 'a scheduled post needs a date', [
      { path: 'date', message: 'required when type is "schedule"' },
    ]));
  }
  if (input.type === 'update') {
    const unnamed = input.posts.flatMap((post, index) => (post.value[0]?.id === undefined
      ? [{ path: `posts.${index}.value.0.id`, message: 'required when type is "update"' }]
      : []));
    if (unnamed.length > 0) {
      failures.push(new DomainError(
        'validation_failed',
        '"update" edits existing posts: give the post id as value[0].id',
        unnamed,
      ));
    }
  }
  return failures;
}

/**
 * Posts named by `value[0].id` are edited in place; they must be ours, on the same channel, and
 * unpublished. Each channel post that breaks this is one failure, in the order of `posts[]`.
 */
async function postsToEdit(
  db: Database,
  organizationId: Types.ObjectId,
  checked: CheckedChannelPost[],
): Promise<{ existing: Map<number, ExistingPost>; failures: DomainError[] }> {
  const found = await Promise.all(checked.map(async ({ index, input, channel }) => {
    const id = input.value[0]?.id;
    if (id === undefined) return { index, post: null, failure: null };
    const path = `posts.${index}.value.0.id`;
    const objectId = asObjectId(id);
    const post = objectId === null
      ? null
      : await db.posts.findOne({ _id: objectId, organizationId, rootPostId: null, deletedAt: null }).lean();
    if (post === null) {
      const failure = new DomainError('not_found', `post ${JSON.stringify(id)} was not found`, [
        { path, message: 'no post of yours has this id' },
      ]);
      return { index, post, failure };
    }
    if (!post.channelId.equals(channel._id)) {
      const failure = new DomainError(
        'validation_failed',
        'a post cannot move to another channel; delete it and create a new one',
        [{ path: `posts.${index}.integration.id`, message: 'differs from the channel of the post being edited' }],
      );
      return { index, post, failure };
    }
    if (post.state === 'PUBLISHED' || post.releaseId !== null) {
      const failure = new DomainError('conflict', `post ${id} is already published and cannot be edited`, [
        { path, message: 'this post is already published' },
      ]);
      return { index, post, failure };
    }
    return { index, post, failure: null };
  }));
  const existing = new Map(found.flatMap(({ index, post }) => (post === null ? [] : [[index, post] as const])));
  return { existing, failures: found.flatMap(({ failure }) => (failure === null ? [] : [failure])) };
}

/**
 * Every check POST /posts makes before it stores anything, in the order it makes them: the
 * request's own rules, each channel post against its channel, media and platform
 * (check-channel-posts.ts), then the posts it edits. Creating stops at the first check that fails
 * and imports media given by URL; a dry run (POST /posts/validate) runs them all and imports nothing.
 */
export async function checkPosts(
  deps: CheckPostsDeps,
  organizationId: Types.ObjectId,
  input: CreatePostsInput,
  mode: 'create' | 'dry-run',
): Promise<PostsCheck> {
  const dryRun = mode === 'dry-run';
  const failures = requestFailures(input);
  const none: PostsCheck = { checked: [], existing: [], failures };
  if (!dryRun && failures.length > 0) return none;

  const imports = deps.mediaQueue === undefined || deps.mediaWaitMs === undefined
    ? undefined
    : { mediaQueue: deps.mediaQueue, mediaWaitMs: deps.mediaWaitMs };
  const inspected = await inspectChannelPosts(deps.db, organizationId, input.type, input.posts, {
    tags: input.tags,
    imports: dryRun ? 'dry-run' : imports,
    mediaReach: deps.mediaReach,
    findChannels: deps.findChannels,
    reportAll: dryRun,
  });
  failures.push(...inspected.failures);
  if (!dryRun && failures.length > 0) return none;

  const edits = await postsToEdit(deps.db, organizationId, inspected.checked);
  failures.push(...edits.failures);
  const existing = input.posts.map((_post, index) => edits.existing.get(index) ?? null);
  // Creating takes the slots itself (create-posts.ts), with the same function.
  if (dryRun && input.type === 'queue') {
    const edited = existing.flatMap((post) => (post === null ? [] : [post._id]));
    failures.push(...await fullSchedules(deps, organizationId, input, inspected.checked, edited));
  }
  return { checked: inspected.checked, existing, failures };
}

/**
 * A dry run of `queue`: whether each channel has the free posting slots its posts would take,
 * asked channel by channel so that a full schedule is reported on the channel posts it concerns.
 */
async function fullSchedules(
  deps: CheckPostsDeps,
  organizationId: Types.ObjectId,
  input: CreatePostsInput,
  checked: CheckedChannelPost[],
  edited: Types.ObjectId[],
): Promise<DomainError[]> {
  const now = deps.now();
  const after = input.date !== undefined && input.date > now ? input.date : now;
  const byChannel = new Map<string, CheckedChannelPost[]>();
  for (const entry of checked) {
    const key = entry.channel._id.toHexString();
    byChannel.set(key, [...(byChannel.get(key) ?? []), entry]);
  }
  const outcomes = await Promise.all([...byChannel.values()].map(async (entries) => {
    const ids = entries.map((entry) => entry.channel._id);
    try {
      await takeQueueSlots(deps.db, organizationId, ids, after, edited);
      return null;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const details = entries.map((entry) => ({
        path: `posts.${entry.index}.integration.id`, message: error.message,
      }));
      return new DomainError(error.code, error.message, details);
    }
  }));
  return outcomes.flatMap((outcome) => (outcome === null ? [] : [outcome]));
}
