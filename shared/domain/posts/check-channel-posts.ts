import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import type { Channel } from '../../db/models/channel.ts';
import type { Media } from '../../db/models/media.ts';
import { asObjectId } from '../../db/object-id.ts';
import { DomainError, type ErrorDetail } from '../../errors.ts';
import type { MediaFacts } from '../../platforms/registry/platform.ts';
import { findPlatform } from '../../platforms/registry/registry.ts';
import { validatePlatformPost } from '../../platforms/registry/validate-post.ts';
import type { ChannelPostInput, CreatePostType } from './post-input.ts';

export interface CheckedChannelPost {
  input: ChannelPostInput;
  channel: Channel & { _id: Types.ObjectId };
  /** Settings as the platform schema parsed them, with `__type` set from the channel. */
  settings: Record<string, unknown>;
}

function mediaFacts(media: Media): MediaFacts {
  const type = media.mimeType ?? 'application/octet-stream';
  return {
    kind: type.startsWith('video/') ? 'video' : 'image',
    mimeType: type,
    width: media.width ?? null,
    height: media.height ?? null,
    durationSeconds: media.durationSeconds ?? null,
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
export async function checkChannelPosts(db: Database, organizationId: Types.ObjectId, type: CreatePostType, posts: ChannelPostInput[]): Promise<CheckedChannelPost[]> {
  const empty: ErrorDetail[] = posts.flatMap((post, postIndex) => post.value.flatMap((part, partIndex) =>
    part.content.trim() === '' && part.image.length === 0 ? [{ path: `posts.${postIndex}.value.${partIndex}.content`, message: 'each part needs content or media' }] : []));
  if (empty.length > 0) throw new DomainError('validation_failed', 'some post parts are empty: each needs content or media', empty);

  const channelIds = posts.map((post) => asObjectId(post.integration.id));
  const channels = await db.channels.find({ _id: { $in: channelIds.filter((id) => id !== null) }, organizationId, deletedAt: null }).lean();
  const byId = new Map(channels.map((channel) => [channel._id.toString(), channel]));
  const unknown = posts.flatMap((post, index) => (byId.has(channelIds[index]?.toString() ?? '') ? [] : [{ index, id: post.integration.id }]));
  if (unknown.length > 0) {
    throw new DomainError(
      'not_found',
      `channel ${unknown.map(({ id }) => JSON.stringify(id)).join(', ')} was not found in your organization`,
      unknown.map(({ index }) => ({ path: `posts.${index}.integration.id`, message: 'not a channel of your organization' })),
    );
  }

  const mediaIds = [...new Set(posts.flatMap((post) => post.value.flatMap((part) => part.image.map((image) => image.id))))];
  const library = mediaIds.length === 0 ? [] : await db.media.find({ _id: { $in: mediaIds.map(asObjectId).filter((id) => id !== null) }, organizationId, status: 'ready' }).lean();
  const mediaById = new Map(library.map((media) => [media._id.toString(), media]));
  const missing = mediaIds.filter((id) => !mediaById.has(id.toLowerCase()));
  if (missing.length > 0) {
    throw new DomainError('unknown_media', `media ${missing.map((id) => JSON.stringify(id)).join(', ')} is not in your media library; upload it first and use the returned id and path`);
  }

  const problems: ErrorDetail[] = [];
  const checked = posts.map((post, index): CheckedChannelPost => {
    const channel = byId.get(channelIds[index]?.toString() ?? '');
    if (channel === undefined) throw new Error('checked above');
    const platform = findPlatform(channel.provider);
    const given = post.settings ?? {};
    if (platform === undefined || type === 'draft') return { input: post, channel, settings: { ...given, __type: channel.provider } };
    const parts = post.value.map((part) => ({
      text: part.content,
      media: part.image.flatMap((image) => {
        const media = mediaById.get(image.id.toLowerCase());
        return media === undefined ? [] : [mediaFacts(media)];
      }),
    }));
    const result = validatePlatformPost(platform, { settings: given, parts });
    for (const problem of result.problems) {
      problems.push({ path: `posts.${index}.${problem.path}`, message: `${platform.displayName} channel "${channel.name}": ${problem.message}` });
    }
    return { input: post, channel, settings: { ...result.settings, __type: channel.provider } };
  });
  if (problems.length > 0) {
    const first = problems[0];
    throw new DomainError('validation_failed', `${first?.path ?? 'posts'}: ${first?.message ?? 'breaks a platform rule'}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`, problems);
  }
  return checked;
}
