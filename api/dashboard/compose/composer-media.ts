import type { Types } from 'mongoose';
import type { Database } from '../../../shared/db/database.ts';
import { findEachById } from '../../../shared/db/equality-queries.ts';
import type { Media } from '../../../shared/db/models/media.ts';
import { asObjectId } from '../../../shared/db/object-id.ts';
import { listMedia } from '../../../shared/domain/media/media-library.ts';

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
  /** The first file of a page just loaded ("show older files"): the cursor goes to it. */
  firstLoaded?: boolean;
}

/** How many files the composer offers at a time, newest first; "show older files" loads the next ones. */
export const libraryPageSize = 24;

/** What the composer shows of the library: its files, and the cursor of the next older page (null at the end). */
export interface ComposerLibrary {
  media: ComposerMedia[];
  next: string | null;
}

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
 * back with problems, or shown by "show older files"). The newest are the /media page's first
 * page (listMedia: one equality on the indexed organization, newest first, bounded); FerretDB
 * still reads the organization's media to sort them, so the live check, which runs as the person
 * types, asks only for the files the form names (`newest: false`, no cursor then).
 */
export async function composerLibrary(
  db: Database,
  organizationId: string,
  named: readonly string[],
  options: { newest: boolean },
): Promise<ComposerLibrary> {
  const organization = asObjectId(organizationId);
  if (organization === null) return { media: [], next: null };
  const newest = !options.newest
    ? { media: [], cursor: null }
    : await listMedia(db, organizationId, { limit: libraryPageSize });
  const listed = new Set(newest.media.map((media) => media._id.toHexString()));
  const older = named.flatMap((id) => (listed.has(id) ? [] : (asObjectId(id) ?? [])));
  const found = older.length === 0 ? [] : await findEachById(db.media, older, { organizationId: organization });
  const media = [...newest.media, ...found].flatMap((one: ReadMedia) => composerMedia(one) ?? []);
  return { media, next: newest.cursor };
}

/**
 * The page of the library older than `before` (a cursor the previous page gave), without the
 * files already shown (an edited post's older files are shown from the start). Its first file is
 * marked for the cursor to go to.
 */
export async function olderLibraryPage(
  db: Database,
  organizationId: string,
  before: string,
  shown: ReadonlySet<string>,
): Promise<ComposerLibrary> {
  const page = await listMedia(db, organizationId, { limit: libraryPageSize, cursor: before });
  const media = page.media.flatMap((one) => {
    const tile = shown.has(one._id.toHexString()) ? null : composerMedia(one);
    return tile ?? [];
  }).map((tile, index) => (index === 0 ? { ...tile, firstLoaded: true } : tile));
  return { media, next: page.cursor };
}
