import { Types } from 'mongoose';
import { findEachById } from '../../db/equality-queries.ts';
import { asObjectId } from '../../db/object-id.ts';
import type { PlatformAdapter, PublishMedia } from '../../platforms/kit/platform-adapter.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import { platformDisplayName } from '../../platforms/platforms.ts';
import type { StoredChannel } from '../channels/channel-tokens.ts';
import { importedMediaState } from '../posts/post-media.ts';
import { findPosterImages, posterProblem } from '../posts/post-posters.ts';
import type { StoredMedia } from '../media/media-view.ts';
import type { OrganizationEndpoints } from '../webhooks/webhook-outbox.ts';
import type { PublishDeps, PublishRunDeps } from './publish-deps.ts';
import { readThread, type ThreadPart } from './publish-store.ts';
import { MediaUnavailable } from './failure-category.ts';

type MediaReference = { id: string; alt?: string | null; thumbnail?: string | null };

/**
 * What the job knows ahead (its payload): the organization and the post's channel, so they are
 * read together with the post. Only hints: the post's own fields decide.
 */
export interface PublishHints {
  organizationId?: string;
  channelId?: string;
  /** The job's turn among its organization's posts due that minute: a call slot goes to the lowest. */
  turn?: number | undefined;
}

/**
 * How long a worker process hands one channel's read, and one organization's webhook endpoints,
 * to its next publishes instead of reading them again. A publish acts on what it read a moment
 * before anyway (up to a slot's wait); a second more changes nothing it relies on: a channel
 * disabled or deleted meanwhile is refused by the platform or the next read, and a token
 * refreshed meanwhile is taken from the database when the platform refuses the old one.
 */
export const publishReadReuseMs = 1_000;

/** A publish that ends before the platform is called. */
export type NothingToCall =
  | { kind: 'skipped'; reason: string }
  /** Not due yet (the post, a thread part's delay, media still being fetched): run again at `until`. */
  | { kind: 'waiting'; until: Date };

/** A thread read and checked, ready for its parts not yet published to be sent. */
export interface PreparedThread {
  kind: 'prepared';
  root: ThreadPart;
  /** The root, then its replies in order. */
  parts: ThreadPart[];
  /** The parts without a release id, in order. */
  unpublished: ThreadPart[];
  channel: StoredChannel;
  adapter: PlatformAdapter;
  mediaOf: (reference: MediaReference) => PublishMedia;
  /** The organization's webhook endpoints, read with the post (null if they could not be). */
  endpoints: OrganizationEndpoints | null;
}

/**
 * The files the parts refer to, from the organization's library, in one round trip; a missing
 * one fails the post loudly rather than publishing without it.
 */
async function threadMedia(
  deps: PublishDeps,
  organizationId: Types.ObjectId,
  references: MediaReference[],
): Promise<(reference: MediaReference) => PublishMedia> {
  const ids = [...new Set(references.map((reference) => reference.id))].filter((id) => Types.ObjectId.isValid(id));
  const thumbnails = references.flatMap((reference) => reference.thumbnail ?? []).filter((named) => named !== '');
  const [library, posters] = await Promise.all([
    findEachById(deps.db.media, ids.map((id) => new Types.ObjectId(id)), { organizationId, status: 'ready' }),
    findPosterImages(deps.db, organizationId, thumbnails),
  ]);
  return (reference) => {
    const media = library.find((candidate) => candidate._id.toString() === reference.id);
    const key = media?.storageKey;
    if (media === undefined || key === null || key === undefined) {
      throw new MediaUnavailable(
        `media ${reference.id} is no longer in the library; the post was not published without it`,
      );
    }
    const mimeType = media.mimeType ?? 'application/octet-stream';
    const fileName = media.originalName ?? media.name;
    const kind = mimeType.startsWith('video/') ? 'video' : 'image';
    const poster = kind === 'video' ? posterOf(deps, fileName, media, posters.get(reference.thumbnail ?? '')) : null;
    return {
      kind,
      mimeType,
      size: media.size ?? 0,
      fileName,
      alt: reference.alt ?? media.alt ?? null,
      url: deps.storage.publicUrl(key),
      durationSeconds: media.durationSeconds ?? null,
      open: () => deps.storage.get(key),
      ...(poster === null ? {} : { poster }),
    };
  };
}

/**
 * A video's poster: the image the post chose (post-posters.ts), else the frame the media worker
 * took. A chosen image deleted from the library since (or changed into something that is no
 * poster) gives way to the frame: a cover is not worth failing the video, and the frame is what
 * the video had without a choice.
 */
function posterOf(
  deps: PublishDeps,
  videoName: string,
  video: StoredMedia,
  chosen: StoredMedia | undefined,
): NonNullable<PublishMedia['poster']> | null {
  const chosenKey = chosen === undefined || posterProblem(chosen) !== null ? null : chosen.storageKey ?? null;
  if (chosen !== undefined && chosenKey !== null) {
    return {
      mimeType: chosen.mimeType ?? 'image/jpeg',
      fileName: chosen.originalName ?? chosen.name,
      url: deps.storage.publicUrl(chosenKey),
      chosen: true,
      open: () => deps.storage.get(chosenKey),
    };
  }
  const frameKey = video.thumbnailKey ?? null;
  if (frameKey === null) return null;
  return {
    mimeType: 'image/jpeg',
    fileName: `${videoName.replace(/\.[^.]*$/, '')}-poster.jpg`,
    url: deps.storage.publicUrl(frameKey),
    chosen: false,
    open: () => deps.storage.get(frameKey),
  };
}

/**
 * Reads the thread and everything its parts need (channel, adapter, media), and decides whether
 * there is anything to send: a deleted, draft, failed, not yet due or already published post is
 * not. Throws a PlatformError when the post cannot be published (channel gone, media missing).
 */
export async function prepareThread(
  deps: PublishRunDeps,
  postId: string,
  hints: PublishHints,
): Promise<PreparedThread | NothingToCall> {
  const { db } = deps;
  const rootId = new Types.ObjectId(postId);
  const { root, replies, hintedChannel: channelRead, endpoints } = await readThread(deps, rootId, {
    channelId: asObjectId(hints.channelId ?? ''), organizationId: hints.organizationId,
  });
  if (root === null) return { kind: 'skipped', reason: 'the post was deleted' };
  if (root.state === 'DRAFT') return { kind: 'skipped', reason: 'the post is a draft' };
  if (root.state === 'ERROR') return { kind: 'skipped', reason: 'the post already failed' };
  // The post decides when it is due, not the job: a job re-added by the recovery sweep while the
  // post was being moved to a later date must not publish it early.
  if ((root.releaseId ?? null) === null && root.publishDate > deps.now()) {
    return { kind: 'waiting', until: root.publishDate };
  }

  const parts = [root, ...replies];
  const unpublished = parts.filter((part) => part.releaseId === null || part.releaseId === undefined);
  // A job can run again after the thread settled (a worker killed after the last write, a job
  // re-added by the sweep): nothing is published twice and the organization is told once.
  if (replies.some((part) => part.state === 'ERROR')) return { kind: 'skipped', reason: 'the post already failed' };
  // Posts published before the notification's id was derived were marked when told.
  if (unpublished.length === 0 && (root.notifiedAt ?? null) !== null) {
    return { kind: 'skipped', reason: 'the post was already published' };
  }
  // Media the post imports by URL may still be fetched by the media worker: wait, or fail clearly.
  const imports = await importedMediaState(
    db,
    root.organizationId,
    unpublished.flatMap((part) => part.media),
    deps.now(),
  );
  if (imports.kind === 'waiting') return { kind: 'waiting', until: imports.until };
  if (imports.kind === 'failed') {
    throw new MediaUnavailable(imports.message);
  }
  const owned = (candidate: typeof channelRead) =>
    candidate !== null && candidate.organizationId.equals(root.organizationId) && candidate._id.equals(root.channelId);
  const [channel, mediaOf] = await Promise.all([
    owned(channelRead)
      ? channelRead
      : db.channels.findOne({ _id: root.channelId, organizationId: root.organizationId, deletedAt: null }).lean(),
    threadMedia(
      deps,
      root.organizationId,
      unpublished.flatMap((part) => part.media),
    ),
  ]);
  if (channel === null || channel.disabled) {
    throw new PlatformError({
      kind: 'disconnected',
      provider: channel?.provider ?? 'unknown',
      message: 'the channel was removed or disabled',
    });
  }
  const adapter = deps.adapters.get(channel.provider);
  if (adapter === undefined) {
    throw new PlatformError({
      kind: 'permanent',
      provider: channel.provider,
      message: `publishing to ${platformDisplayName(channel.provider)} is not available yet`,
    });
  }
  return { kind: 'prepared', root, parts, unpublished, channel, adapter, mediaOf, endpoints };
}
