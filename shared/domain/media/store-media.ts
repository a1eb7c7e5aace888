import type { Readable } from 'node:stream';
import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { asObjectId } from '../../db/object-id.ts';
import { notFound } from '../../errors.ts';
import type { AcceptedMediaType, MediaSizeLimits } from '../../media/media-types.ts';
import { sniffMedia } from '../../media/sniff-media.ts';
import { newObjectKey } from '../../storage/object-key.ts';
import type { Storage } from '../../storage/storage.ts';
import type { StoredMedia } from './media-view.ts';
import { remoteMediaName } from './remote-media-url.ts';

export interface StoredBytes {
  key: string;
  url: string;
  size: number;
  type: AcceptedMediaType;
}

/**
 * Sniffs the first bytes, refuses what is not allowed, and streams everything into storage with
 * the size cap for that kind enforced on the way; a cut-off or failed write leaves no object.
 */
export async function streamIntoStorage(storage: Storage, source: Readable, limits: MediaSizeLimits): Promise<StoredBytes> {
  const sniffed = await sniffMedia(source, limits);
  const key = newObjectKey(sniffed.type.extension);
  try {
    const stored = await storage.put(key, sniffed.stream, { contentType: sniffed.type.mimeType });
    return { key, url: stored.url, size: stored.size, type: sniffed.type };
  } catch (error) {
    await storage.delete(key);
    throw error;
  }
}

/** The media library entry for bytes the api just stored; the worker inspects it next. */
export async function recordUploadedMedia(db: Database, organizationId: string, stored: StoredBytes, originalName: string | null): Promise<StoredMedia> {
  const media = await db.media.create({
    organizationId: new Types.ObjectId(organizationId),
    name: stored.key.split('/').at(-1) ?? stored.key,
    originalName,
    storageKey: stored.key,
    path: stored.url,
    mimeType: stored.type.mimeType,
    size: stored.size,
    status: 'pending',
  });
  return media.toObject();
}

/**
 * The pending library entry an import of `source` starts with, not saved: a dry run of a post
 * (shared/domain/posts/validate-posts.ts) checks the post against it without importing anything.
 */
export function remoteMediaEntry(db: Database, organizationId: string, source: URL): StoredMedia {
  const name = remoteMediaName(source);
  return new db.media({
    organizationId: new Types.ObjectId(organizationId),
    name,
    originalName: name,
    sourceUrl: source.href,
    status: 'pending',
  }).toObject();
}

/** A media library entry for a URL the worker will fetch (parsed by `parseRemoteMediaUrl`). */
export async function recordRemoteMedia(db: Database, organizationId: string, source: URL): Promise<StoredMedia> {
  const media = await db.media.create(remoteMediaEntry(db, organizationId, source));
  return media.toObject();
}

export async function findOwnedMedia(db: Database, organizationId: string, mediaId: string): Promise<StoredMedia> {
  const id = asObjectId(mediaId);
  const media = id === null ? null : await db.media.findOne({ _id: id, organizationId }).lean();
  if (media === null) throw notFound(`media ${JSON.stringify(mediaId)}`);
  return media;
}

/** Removes a media record and its stored objects (file and poster frame). */
export async function deleteMedia(deps: { db: Database; storage: Storage }, organizationId: string, mediaId: string): Promise<{ id: string; deleted: true }> {
  const media = await findOwnedMedia(deps.db, organizationId, mediaId);
  for (const key of [media.storageKey, media.thumbnailKey]) {
    if (key !== null && key !== undefined) await deps.storage.delete(key);
  }
  await deps.db.media.deleteOne({ _id: media._id });
  return { id: media._id.toString(), deleted: true };
}
