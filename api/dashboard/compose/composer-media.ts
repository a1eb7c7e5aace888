import type { Types } from 'mongoose';
import type { Database } from '../../../shared/db/database.ts';
import { findEachById } from '../../../shared/db/equality-queries.ts';
import type { Media } from '../../../shared/db/models/media.ts';
import { asObjectId } from '../../../shared/db/object-id.ts';

/** A file of the organization's media library, as the composer offers and previews it. */
export interface ComposerMedia {
  id: string;
  /** Public address of the file: what a post's `image[].path` names. */
  path: string;
  /** The poster frame of a video, or the image itself: what the composer shows. */
  picture: string | null;
  kind: 'image' | 'video';
  mimeType: string;
  /** The name it was uploaded with, else the stored one. */
  name: string;
  status: Media['status'];
}

/** How many of the newest files the composer offers; older ones stay reachable through the API. */
export const libraryPageSize = 24;

type ReadMedia = Media & { _id: Types.ObjectId };

export function composerMedia(media: ReadMedia): ComposerMedia | null {
  if (media.path === null || media.path === undefined || media.status === 'failed') return null;
  const kind = media.mimeType?.startsWith('video/') === true ? 'video' : 'image';
  return {
    id: media._id.toHexString(),
    path: media.path,
    picture: media.thumbnail ?? (kind === 'image' ? media.path : null),
    kind,
    mimeType: media.mimeType ?? 'image/jpeg',
    name: media.originalName ?? media.name,
    status: media.status,
  };
}

/**
 * The newest files of the library, plus any older one the form names (kept when the form comes
 * back with problems). The newest are one equality on the indexed organization, newest first,
 * bounded; FerretDB still reads the organization's media to sort them, so the live check, which
 * runs as the person types, asks only for the files the form names (`newest: false`).
 */
export async function composerLibrary(
  db: Database,
  organizationId: string,
  named: readonly string[],
  options: { newest: boolean },
): Promise<ComposerMedia[]> {
  const organization = asObjectId(organizationId);
  if (organization === null) return [];
  const newest = !options.newest ? [] : await db.media.find({ organizationId: organization })
    .sort({ createdAt: -1, _id: -1 }).limit(libraryPageSize).lean<ReadMedia[]>();
  const listed = new Set(newest.map((media) => media._id.toHexString()));
  const older = named.flatMap((id) => (listed.has(id) ? [] : (asObjectId(id) ?? [])));
  const found = older.length === 0 ? [] : await findEachById(db.media, older, { organizationId: organization });
  return [...newest, ...found].flatMap((media) => composerMedia(media) ?? []);
}
