import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { findEachById, updateThread } from '../../db/equality-queries.ts';
import { derivedObjectId } from '../../db/derived-object-id.ts';
import { asObjectId } from '../../db/object-id.ts';
import type { AdapterSet } from '../../platforms/platforms.ts';
import { PlatformError } from '../../platforms/kit/platform-error.ts';
import type { PartCheckpoint, PublishMedia, PublishResult } from '../../platforms/kit/platform-adapter.ts';
import type { Storage } from '../../storage/storage.ts';
import { findPlatform } from '../../platforms/platforms.ts';
import type { ChannelTokens } from '../channels/channel-tokens.ts';
import { notify } from '../notifications/notifications.ts';
import { missingReleaseId } from '../posts/post-changes.ts';
import { importedMediaState } from '../posts/post-media.ts';
import { assertCheckpointKeys } from '../../platforms/kit/checkpoint-keys.ts';
import type { WebhookEvents } from '../webhooks/webhook-outbox.ts';
import { readThread, savePublishedPart } from './publish-store.ts';

export interface PublishDeps {
  db: Database;
  adapters: AdapterSet;
  /** Opens the channel's token, refreshing it first or after the platform calls it expired. */
  tokens: ChannelTokens;
  /** Where attached media are read from when an adapter uploads them to the platform. */
  storage: Storage;
  now: () => Date;
  /** post.published, post.failed and channel.disconnected are told to the organization's endpoints. */
  webhooks: WebhookEvents;
}

type MediaReference = { id: string; alt?: string | null };

/**
 * What the job knows ahead (its payload): the organization and the post's channel, so they are
 * read together with the post. Only hints: the post's own fields decide.
 */
export interface PublishHints {
  organizationId?: string;
  channelId?: string;
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
  const library = await findEachById(
    deps.db.media,
    ids.map((id) => new Types.ObjectId(id)),
    { organizationId, status: 'ready' },
  );
  return (reference) => {
    const media = library.find((candidate) => candidate._id.toString() === reference.id);
    const key = media?.storageKey;
    if (media === undefined || key === null || key === undefined) {
      throw new PlatformError({
        kind: 'permanent',
        provider: 'sps',
        message: `media ${reference.id} is no longer in the library; the post was not published without it`,
      });
    }
    const mimeType = media.mimeType ?? 'application/octet-stream';
    const fileName = media.originalName ?? media.name;
    const posterKey = media.thumbnailKey ?? null;
    return {
      kind: mimeType.startsWith('video/') ? 'video' : 'image',
      mimeType,
      size: media.size ?? 0,
      fileName,
      alt: reference.alt ?? media.alt ?? null,
      url: deps.storage.publicUrl(key),
      durationSeconds: media.durationSeconds ?? null,
      open: () => deps.storage.get(key),
      ...(posterKey === null ? {} : {
        poster: {
          mimeType: 'image/jpeg',
          fileName: `${fileName.replace(/\.[^.]*$/, '')}-poster.jpg`,
          url: deps.storage.publicUrl(posterKey),
          open: () => deps.storage.get(posterKey),
        },
      }),
    };
  };
}

/** The part's stored checkpoint, read once with the part and merged on every save. */
function partCheckpoint(deps: PublishDeps, partId: Types.ObjectId, stored: unknown): PartCheckpoint {
  const values: Record<string, string> = {};
  if (typeof stored === 'object' && stored !== null) {
    for (const [key, value] of Object.entries(stored)) if (typeof value === 'string') values[key] = value;
  }
  return {
    values,
    save: async (added) => {
      assertCheckpointKeys(added);
      Object.assign(values, added);
      await deps.db.posts.updateOne({ _id: partId }, { $set: { checkpoint: { ...values } } });
    },
  };
}

/**
 * A part the platform may have published without telling: it keeps release id `missing`, so the
 * user can find it with GET /posts/:id/missing and link it, and it is never sent again by itself.
 */
async function setAsideUnconfirmed(deps: PublishDeps, partId: Types.ObjectId, error: PlatformError): Promise<void> {
  await deps.db.posts.updateOne(
    { _id: partId },
    { $set: { releaseId: missingReleaseId, state: 'ERROR', error: `unconfirmed: ${error.message}` } },
  );
}

export type PublishOutcome =
  | { kind: 'published'; releaseURL: string; provider: string }
  /** The next thread part's delay has not elapsed: run again at `until`. */
  | { kind: 'waiting'; until: Date }
  | { kind: 'skipped'; reason: string };

/**
 * Endpoints read with the post serve its event only this long after: a long upload reads them
 * again, so an endpoint registered meanwhile still hears of the publication.
 */
const endpointsFreshMs = 5_000;

const displayName = (provider: string): string => findPlatform(provider)?.displayName ?? provider;

/**
 * Publishes a post's parts in order. Each part's release id is saved as soon as the platform
 * accepts it, so running this again (a retry, a stalled job taken over by another worker)
 * resumes after the last published part instead of publishing it twice.
 */
export async function publishThread(
  deps: PublishDeps,
  postId: string,
  hints: PublishHints = {},
): Promise<PublishOutcome> {
  const { db } = deps;
  const rootId = new Types.ObjectId(postId);
  const startedAt = deps.now().getTime();
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
  // re-added by the sweep): nothing is published twice and the organization is told once (below).
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
    throw new PlatformError({ kind: 'permanent', provider: 'sps', message: imports.message });
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
      message: `publishing to ${displayName(channel.provider)} is not available yet`,
    });
  }

  let releaseURL = root.releaseURL ?? '';
  let rootReleaseId = root.releaseId ?? '';
  let rootPublishedAt = root.publishedAt ?? null;
  let previous: { releaseId: string; publishedAt: Date } | null = null;
  for (const part of parts) {
    if (part.releaseId !== null && part.releaseId !== undefined) {
      previous = { releaseId: part.releaseId, publishedAt: part.publishedAt ?? deps.now() };
      continue;
    }
    if (previous !== null && part.delayMinutes > 0) {
      const dueAt = new Date(previous.publishedAt.getTime() + part.delayMinutes * 60_000);
      if (dueAt > deps.now()) return { kind: 'waiting', until: dueAt };
    }
    const media = part.media.map(mediaOf);
    const settings = (root.settings ?? {}) as Record<string, unknown>;
    const idempotencyKey = `sps-post-${part._id.toString()}`;
    const parent = previous;
    const dueAt =
      parent === null ? root.publishDate : new Date(parent.publishedAt.getTime() + part.delayMinutes * 60_000);
    const checkpoint = partCheckpoint(deps, part._id, part.checkpoint);
    const result: PublishResult = await deps.tokens
      .run(channel, (credentials) => {
        const input = {
          channel: credentials,
          content: part.content,
          media,
          settings,
          idempotencyKey,
          dueAt,
          checkpoint,
        };
        if (parent === null) return adapter.publish(input);
        return adapter.comment({ ...input, parentReleaseId: parent.releaseId });
      })
      .catch(async (error: unknown) => {
        if (error instanceof PlatformError && error.kind === 'unconfirmed')
          await setAsideUnconfirmed(deps, part._id, error);
        throw error;
      });
    const publishedAt = deps.now();
    await savePublishedPart(db, part._id, result, publishedAt);
    previous = { releaseId: result.releaseId, publishedAt };
    if (part.position === 0) {
      releaseURL = result.releaseURL;
      rootReleaseId = result.releaseId;
      rootPublishedAt = publishedAt;
    }
  }

  // Told exactly once: the notification and the event take ids derived from the publication (the
  // root and the release the platform gave it, saved before), so a run again after a crash, or a
  // second worker racing this one to the same release, writes nothing new.
  const publishedAt = rootPublishedAt ?? deps.now();
  const publication = derivedObjectId(
    root._id.getTimestamp(), 'post.published', root._id.toHexString(), rootReleaseId,
  );
  await Promise.all([
    notify(db, root.organizationId.toString(), {
      content: `Your post was published on ${displayName(channel.provider)} at ${releaseURL}`,
      link: releaseURL === '' ? null : releaseURL,
    }, publication),
    deps.webhooks.emit(root.organizationId.toString(), 'post.published', {
      postId: root._id.toString(),
      group: root.group,
      channelId: channel._id.toString(),
      provider: channel.provider,
      releaseURL,
      publishedAt: publishedAt.toISOString(),
    }, {
      endpoints: deps.now().getTime() - startedAt <= endpointsFreshMs ? endpoints : null,
      once: publication,
    }),
  ]);
  return { kind: 'published', releaseURL, provider: channel.provider };
}

/**
 * Gives up on a post: marks the parts not yet published as failed with the platform's message,
 * flags the channel when the platform no longer accepts its credentials, and tells the
 * organization why.
 */
export async function failThread(deps: PublishDeps, postId: string, failure: Error): Promise<void> {
  const { db } = deps;
  const root = await db.posts.findOne({ _id: postId, rootPostId: null }).lean();
  if (root === null) return;
  const channel = await db.channels.findOne({ _id: root.channelId }).lean();
  const provider = channel?.provider ?? 'unknown';
  const message = failure.message;

  if (
    failure instanceof PlatformError &&
    (failure.kind === 'disconnected' || failure.kind === 'refresh_token') &&
    channel !== null
  ) {
    // Flagged once: the organization's endpoints hear of it when it changes, not on every failed post.
    const flagged = await db.channels.updateOne(
      { _id: channel._id, refreshNeeded: false },
      { $set: { refreshNeeded: true } },
    );
    // Told at once: a run of this function again (the job retried after a later write failed) finds
    // the channel flagged already and would not tell it.
    if (flagged.modifiedCount === 1) {
      await deps.webhooks.emit(root.organizationId.toString(), 'channel.disconnected', {
        channelId: channel._id.toString(), provider, name: channel.name, reason: message,
      });
    }
  }
  const unconfirmed = failure instanceof PlatformError && failure.kind === 'unconfirmed';
  const content = unconfirmed
    ? `Your post may have been published on ${displayName(provider)}, which did not confirm it: ${message}. ` +
      'SPS did not send it again; check the account, then link the item or schedule the post again'
    : `Your post could not be published on ${displayName(provider)}: ${message}`;
  await notify(db, root.organizationId.toString(), { content, link: null });
  // The state last: a post in ERROR has its notification and its flagged channel. A crash before
  // this write runs the job again, which at worst tells the organization twice.
  await updateThread(db.posts, root._id, { releaseId: null }, { $set: { state: 'ERROR', error: message } });
  // After the state it reports, so a receiver that reads the post finds it failed.
  await deps.webhooks.emit(root.organizationId.toString(), 'post.failed', {
    postId: root._id.toString(), group: root.group, channelId: root.channelId.toString(), provider, error: message,
  });
}
