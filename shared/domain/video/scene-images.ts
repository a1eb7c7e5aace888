import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { findEachById } from '../../db/equality-queries.ts';
import { asObjectId } from '../../db/object-id.ts';
import { DomainError, type ErrorDetail } from '../../errors.ts';
import type { StoredMedia } from '../media/media-view.ts';

/** Still formats ffmpeg loops as a scene's picture; a GIF or an AVIF is not read that way. */
const sceneImageTypes: Record<string, string> = {
  'image/jpeg': 'JPEG', 'image/png': 'PNG', 'image/webp': 'WebP', 'image/bmp': 'BMP', 'image/tiff': 'TIFF',
};

/**
 * The library images a slideshow names, in the order named: each must be the organization's,
 * ready, and a still image ffmpeg can loop. Anything else is 400 `unknown_media` naming each
 * one, as POST /posts does.
 */
export async function findSceneImages(
  db: Database,
  organizationId: Types.ObjectId,
  ids: readonly string[],
): Promise<StoredMedia[]> {
  const wanted = ids.map((id) => asObjectId(id));
  const found = await findEachById(db.media, wanted.filter((id) => id !== null), { organizationId });
  const byId = new Map(found.map((media) => [media._id.toHexString(), media]));
  const problems: ErrorDetail[] = [];
  const images = ids.flatMap((id, index) => {
    const media = byId.get(wanted[index]?.toHexString() ?? '');
    const path = `customParams.images.${index}`;
    if (media === undefined) problems.push({ path, message: `media ${id} is not in your library` });
    else if (media.status !== 'ready') problems.push({ path, message: `media ${id} is ${media.status}, not ready` });
    else if (sceneImageTypes[media.mimeType ?? ''] === undefined) {
      const accepted = Object.values(sceneImageTypes).join(', ');
      const type = media.mimeType ?? 'of no known type';
      problems.push({ path, message: `media ${id} is ${type}; scenes take ${accepted}` });
    }
    else return [media];
    return [];
  });
  const first = problems[0];
  if (first !== undefined) throw new DomainError('unknown_media', `${first.path}: ${first.message}`, problems);
  return images;
}
