import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { Channel } from '../../db/models/channel.ts';
import type { Media } from '../../db/models/media.ts';
import { findEachById } from '../../db/equality-queries.ts';
import { asObjectId, distinctObjectIds } from '../../db/object-id.ts';
import { DomainError, type ErrorDetail } from '../../errors.ts';
import type { MediaFacts } from '../../platforms/kit/platform-definition.ts';
import type { MediaReach } from '../../platforms/media-reach.ts';
import { findPlatform } from '../../platforms/platforms.ts';
import { validatePlatformPost } from '../../platforms/validate-post.ts';
import { measureJson } from '../../validation/json-shape.ts';
import { channelPostIndexOf } from './post-body-paths.ts';
import type { ChannelPostInput, CreatePostType } from './post-input.ts';
import { resolvePostMedia, type MediaByUrl } from './post-media.ts';
import { checkPosters } from './post-posters.ts';

/** What checking and storing a post needs of its channel: the platform, its name, its own text limit. */
export type PostingChannel = Pick<Channel, 'provider' | 'name' | 'textLimit'> & { _id: Types.ObjectId };

/** The organization's live (not deleted) channels among `ids`; the api answers it from its cache. */
export type ChannelFinder = (
  organizationId: Types.ObjectId,
  ids: readonly Types.ObjectId[],
) => Promise<PostingChannel[]>;

/** Straight from the database: one indexed equality query per channel, sent together. */
export const findPostingChannels = (db: Database): ChannelFinder => (organizationId, ids) =>
  findEachById(db.channels, ids, { organizationId, deletedAt: null });

export interface CheckedChannelPost {
  /** Its place in the request's `posts[]`. */
  index: number;
  input: ChannelPostInput;
  channel: PostingChannel;
  /** Settings as the platform schema parsed them, with `__type` set from the channel. */
  settings: Record<string, unknown>;
}

/**
 * Each part is one MongoDB document (16 MB at most) carrying its content, the post's settings
 * and tags: a part that would not fit is refused before anything is stored, with a margin for
 * the other fields and the encoding.
 */
export const maxStoredPartBytes = 15 * 1024 * 1024;

function oversizedParts(posts: ChannelPostInput[], tags: { value: string; label: string }[]): ErrorDetail[] {
  const unbounded = { maxDepth: Number.POSITIVE_INFINITY, maxBytes: Number.POSITIVE_INFINITY };
  const tagBytes = measureJson(tags, unbounded).bytes;
  return posts.flatMap((post, postIndex) => {
    const shared = measureJson(post.settings ?? {}, unbounded).bytes + tagBytes;
    return post.value.flatMap((part, partIndex) => {
      const bytes = shared + Buffer.byteLength(part.content) + measureJson(part.image, unbounded).bytes;
      if (bytes <= maxStoredPartBytes) return [];
      const megabytes = (bytes / (1024 * 1024)).toFixed(1);
      return [
        {
          path: `posts.${postIndex}.value.${partIndex}`,
          message: `this part holds ${megabytes} MB (content, settings and tags); one part can hold at most 15 MB`,
        },
      ];
    });
  });
}

/**
 * What the platform rules see of a media. One still importing when the post is created counts
 * as a JPEG image of unknown size, the one kind every platform with media takes: its count is
 * checked now, its real kind and size by the platform when the post is published.
 */
function mediaFacts(media: Media): MediaFacts {
  const type = media.mimeType ?? (media.status === 'pending' ? 'image/jpeg' : 'application/octet-stream');
  return {
    kind: type.startsWith('video/') ? 'video' : 'image',
    mimeType: type,
    width: media.width ?? null,
    height: media.height ?? null,
    durationSeconds: media.durationSeconds ?? null,
    sizeBytes: media.size ?? null,
    videoCodec: media.videoCodec ?? null,
    audioCodec: media.audioCodec ?? null,
    frameRate: media.frameRate ?? null,
  };
}

export interface CheckOptions {
  /** Tags are copied into every part document: they count towards its size. */
  tags?: { value: string; label: string }[];
  /** Given by the api: unknown media given by URL are imported, or in a dry run taken as importing (post-media.ts). */
  imports?: MediaByUrl;
  /** Given by the api: refuses media for platforms that could not fetch them (media-reach.ts). */
  mediaReach?: MediaReach;
  /** Given by the api: its cached look-up; the database otherwise. */
  findChannels?: ChannelFinder;
  /**
   * A dry run: every check runs instead of stopping at the first that fails. A check that needs
   * what an earlier one found missing (the channel; for platform rules, the media) skips only the
   * channel posts concerned.
   */
  reportAll?: boolean;
}

export interface ChannelPostsCheck {
  /** The channel posts whose channel was found, in order: all of them when no check failed. */
  checked: CheckedChannelPost[];
  /** Each failed check, in the order they run, naming its problems in `details`. */
  failures: DomainError[];
}

/**
 * Refuses, before anything is stored, media attached for a platform that would have to fetch them
 * from an address it cannot reach: the post would otherwise fail at publish time.
 */
function unreachableMedia(
  posts: ChannelPostInput[],
  channels: Map<string, { provider: string; name: string }>,
  library: ReadonlyMap<string, Media>,
  reach: MediaReach,
): DomainError | null {
  const details = posts.flatMap((post, index) => {
    const channel = channels.get(asObjectId(post.integration.id)?.toString() ?? '');
    if (channel === undefined || reach(channel.provider)) return [];
    // Some platforms pull only some kinds (TikTok: photos by URL, videos uploaded).
    const kindOf = (id: string) => {
      const media = library.get(id);
      return media === undefined ? undefined : mediaFacts(media).kind;
    };
    const withMedia = post.value.findIndex((part) =>
      part.image.some((image) => !reach(channel.provider, kindOf(image.id))),
    );
    if (withMedia === -1) return [];
    const platform = findPlatform(channel.provider);
    const name = platform?.displayName ?? channel.provider;
    const pulled = platform?.mediaByUrl === 'images' ? 'images' : 'media';
    return [
      {
        path: `posts.${index}.value.${withMedia}.image`,
        message:
          `${name} channel "${channel.name}": ${name} ` +
          `fetches ${pulled} from their URL, and this server serves them at a private address`,
      },
    ];
  });
  const [first] = details;
  if (first === undefined) return null;
  return new DomainError(
    'media_not_public',
    `${first.message}; set UPLOADS_PUBLIC_URL (or a public S3 bucket ` +
      'address) to an address the platform can reach, or post without media',
    details,
  );
}

/** The channel posts named by the details of `failures` (`posts.2...`). */
function channelPostsNamedBy(failures: DomainError[]): Set<number> {
  const indexes = failures.flatMap((failure) => failure.details ?? []).map((detail) => channelPostIndexOf(detail.path));
  return new Set(indexes.filter((index) => index !== null));
}

/**
 * Everything a channel post must satisfy before anything is stored: every part says something,
 * the channel and the media belong to the organization, and (except for drafts) the platform's
 * rules hold. Each check reports all its problems at once, each naming the channel, platform and
 * rule; the first check that fails ends the inspection unless `reportAll` is set.
 */
export async function inspectChannelPosts(
  db: Database,
  organizationId: Types.ObjectId,
  type: CreatePostType,
  given: ChannelPostInput[],
  options: CheckOptions = {},
): Promise<ChannelPostsCheck> {
  const failures: DomainError[] = [];
  const stopped = (): boolean => options.reportAll !== true && failures.length > 0;
  const empty: ErrorDetail[] = given.flatMap((post, postIndex) =>
    post.value.flatMap((part, partIndex) =>
      part.content.trim() === '' && part.image.length === 0
        ? [{ path: `posts.${postIndex}.value.${partIndex}.content`, message: 'each part needs content or media' }]
        : [],
    ),
  );
  if (empty.length > 0) {
    const message = 'some post parts are empty: each needs content or media';
    failures.push(new DomainError('validation_failed', message, empty));
  }
  if (stopped()) return { checked: [], failures };
  const oversized = oversizedParts(given, options.tags ?? []);
  if (oversized.length > 0) {
    const [first] = oversized;
    failures.push(new DomainError(
      'payload_too_large',
      `PayloadTooLargeError: ${first?.path ?? 'posts'}: ${first?.message ?? 'too large'}; ` +
        'split the text over several parts',
      oversized,
    ));
  }
  if (stopped()) return { checked: [], failures };

  const channelIds = given.map((post) => asObjectId(post.integration.id));
  const findChannels = options.findChannels ?? findPostingChannels(db);
  const channels = await findChannels(organizationId, distinctObjectIds(given.map((post) => post.integration.id)));
  const byId = new Map(channels.map((channel) => [channel._id.toString(), channel]));
  const unknown = given.flatMap((post, index) =>
    byId.has(channelIds[index]?.toString() ?? '') ? [] : [{ index, id: post.integration.id }],
  );
  if (unknown.length > 0) {
    failures.push(new DomainError(
      'not_found',
      `channel ${unknown.map(({ id }) => JSON.stringify(id)).join(', ')} was not found in your organization`,
      unknown.map(({ index }) => ({
        path: `posts.${index}.integration.id`,
        message: 'not a channel of your organization',
      })),
    ));
  }
  if (stopped()) return { checked: [], failures };

  const resolved = await resolvePostMedia(db, organizationId, given, options.imports);
  failures.push(...resolved.failures);
  if (stopped()) return { checked: [], failures };
  const posters = await checkPosters(db, organizationId, given, resolved.posts, resolved.library);
  if (posters.failure !== null) failures.push(posters.failure);
  if (stopped()) return { checked: [], failures };
  const posts = posters.posts;
  const mediaById = resolved.library;

  if (type !== 'draft' && options.mediaReach !== undefined) {
    const unreachable = unreachableMedia(posts, byId, mediaById, options.mediaReach);
    if (unreachable !== null) failures.push(unreachable);
  }
  if (stopped()) return { checked: [], failures };
  // Only a dry run gets here with media problems: the rules are not judged on media half known.
  const mediaMissing = channelPostsNamedBy(resolved.failures);
  const problems: ErrorDetail[] = [];
  const checked = posts.flatMap((post, index): CheckedChannelPost[] => {
    const channel = byId.get(channelIds[index]?.toString() ?? '');
    if (channel === undefined) return [];
    const platform = findPlatform(channel.provider);
    const given = post.settings ?? {};
    if (platform === undefined || type === 'draft' || mediaMissing.has(index))
      return [{ index, input: post, channel, settings: { ...given, __type: channel.provider } }];
    const parts = post.value.map((part) => ({
      text: part.content,
      media: part.image.flatMap((image) => {
        const media = mediaById.get(image.id);
        return media === undefined ? [] : [mediaFacts(media)];
      }),
    }));
    // A channel may carry its own text limit (a Mastodon instance's), read when it was connected.
    const rules = (channel.textLimit ?? null) === null ? platform : { ...platform, textLimit: channel.textLimit ?? 0 };
    const result = validatePlatformPost(rules, { settings: given, parts });
    for (const problem of result.problems) {
      problems.push({
        path: `posts.${index}.${problem.path}`,
        message: `${platform.displayName} channel "${channel.name}": ${problem.message}`,
      });
    }
    return [{ index, input: post, channel, settings: { ...result.settings, __type: channel.provider } }];
  });
  if (problems.length > 0) {
    const first = problems[0];
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    failures.push(new DomainError(
      'validation_failed',
      `${first?.path ?? 'posts'}: ${first?.message ?? 'breaks a platform rule'}${more}`,
      problems,
    ));
  }
  return { checked, failures };
}

/** `inspectChannelPosts` for callers that store what passes: the first failed check is thrown. */
export async function checkChannelPosts(
  db: Database,
  organizationId: Types.ObjectId,
  type: CreatePostType,
  given: ChannelPostInput[],
  options: CheckOptions = {},
): Promise<CheckedChannelPost[]> {
  const { checked, failures } = await inspectChannelPosts(db, organizationId, type, given, {
    ...options, reportAll: false,
  });
  const [failure] = failures;
  if (failure !== undefined) throw failure;
  return checked;
}
