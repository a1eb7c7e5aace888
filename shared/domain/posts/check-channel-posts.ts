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
import type { ChannelPostInput, CreatePostType } from './post-input.ts';
import { resolvePostMedia, type MediaImports } from './post-media.ts';

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

/**
 * Everything a channel post must satisfy before anything is stored: every part says something,
 * the channel and the media belong to the organization, and (except for drafts) the platform's
 * rules hold. All problems are reported at once, each naming the channel, platform and rule.
 */
export interface CheckOptions {
  /** Tags are copied into every part document: they count towards its size. */
  tags?: { value: string; label: string }[];
  /** Given by the api: unknown media given by URL are imported (post-media.ts). */
  imports?: MediaImports;
  /** Given by the api: refuses media for platforms that could not fetch them (media-reach.ts). */
  mediaReach?: MediaReach;
  /** Given by the api: its cached look-up; the database otherwise. */
  findChannels?: ChannelFinder;
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
): void {
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
  if (first === undefined) return;
  throw new DomainError(
    'media_not_public',
    `${first.message}; set UPLOADS_PUBLIC_URL (or a public S3 bucket ` +
      'address) to an address the platform can reach, or post without media',
    details,
  );
}

export async function checkChannelPosts(
  db: Database,
  organizationId: Types.ObjectId,
  type: CreatePostType,
  given: ChannelPostInput[],
  options: CheckOptions = {},
): Promise<CheckedChannelPost[]> {
  let posts = given;
  const empty: ErrorDetail[] = posts.flatMap((post, postIndex) =>
    post.value.flatMap((part, partIndex) =>
      part.content.trim() === '' && part.image.length === 0
        ? [{ path: `posts.${postIndex}.value.${partIndex}.content`, message: 'each part needs content or media' }]
        : [],
    ),
  );
  if (empty.length > 0)
    throw new DomainError('validation_failed', 'some post parts are empty: each needs content or media', empty);
  const oversized = oversizedParts(posts, options.tags ?? []);
  if (oversized.length > 0) {
    const [first] = oversized;
    throw new DomainError(
      'payload_too_large',
      `PayloadTooLargeError: ${first?.path ?? 'posts'}: ${first?.message ?? 'too large'}; ` +
        'split the text over several parts',
      oversized,
    );
  }

  const channelIds = posts.map((post) => asObjectId(post.integration.id));
  const findChannels = options.findChannels ?? findPostingChannels(db);
  const channels = await findChannels(organizationId, distinctObjectIds(posts.map((post) => post.integration.id)));
  const byId = new Map(channels.map((channel) => [channel._id.toString(), channel]));
  const unknown = posts.flatMap((post, index) =>
    byId.has(channelIds[index]?.toString() ?? '') ? [] : [{ index, id: post.integration.id }],
  );
  if (unknown.length > 0) {
    throw new DomainError(
      'not_found',
      `channel ${unknown.map(({ id }) => JSON.stringify(id)).join(', ')} was not found in your organization`,
      unknown.map(({ index }) => ({
        path: `posts.${index}.integration.id`,
        message: 'not a channel of your organization',
      })),
    );
  }

  const resolved = await resolvePostMedia(db, organizationId, posts, options.imports);
  posts = resolved.posts;
  const mediaById = resolved.library;

  if (type !== 'draft' && options.mediaReach !== undefined) {
    unreachableMedia(posts, byId, mediaById, options.mediaReach);
  }
  const problems: ErrorDetail[] = [];
  const checked = posts.map((post, index): CheckedChannelPost => {
    const channel = byId.get(channelIds[index]?.toString() ?? '');
    if (channel === undefined) throw new Error('checked above');
    const platform = findPlatform(channel.provider);
    const given = post.settings ?? {};
    if (platform === undefined || type === 'draft')
      return { input: post, channel, settings: { ...given, __type: channel.provider } };
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
    return { input: post, channel, settings: { ...result.settings, __type: channel.provider } };
  });
  if (problems.length > 0) {
    const first = problems[0];
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    throw new DomainError(
      'validation_failed',
      `${first?.path ?? 'posts'}: ${first?.message ?? 'breaks a platform rule'}${more}`,
      problems,
    );
  }
  return checked;
}
