import { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { DomainError } from '../../errors.ts';
import type { Storage } from '../../storage/storage.ts';
import { deleteMedia, findOwnedMedia } from './store-media.ts';
import type { StoredMedia } from './media-view.ts';

export const mediaPageLimits = { default: 50, max: 100 } as const;

/** A page of the library, newest first; `cursor` is the last media's id, null after the last page. */
export interface MediaPage {
  media: StoredMedia[];
  cursor: string | null;
}

/** The library newest first, `limit` at a time after `cursor` (an id the previous page answered). */
export async function listMedia(
  db: Database,
  organizationId: string,
  page: { limit?: number | undefined; cursor?: string | undefined },
): Promise<MediaPage> {
  const limit = page.limit ?? mediaPageLimits.default;
  const filter: Record<string, unknown> = { organizationId: new Types.ObjectId(organizationId) };
  if (page.cursor !== undefined) {
    if (!Types.ObjectId.isValid(page.cursor) || !/^[0-9a-f]{24}$/.test(page.cursor)) {
      throw new DomainError('validation_failed', 'cursor is not one this API gave', [
        { path: 'cursor', message: 'pass the cursor of the previous page as it was answered' },
      ]);
    }
    filter._id = { $lt: new Types.ObjectId(page.cursor) };
  }
  const found = await db.media.find(filter).sort({ _id: -1 }).limit(limit + 1).lean();
  const media = found.slice(0, limit);
  const last = media.at(-1);
  return { media, cursor: found.length > limit && last !== undefined ? last._id.toHexString() : null };
}

/** Where a media is used: the posts (not deleted) whose parts attach it, by state. */
export interface MediaUse {
  scheduled: string[];
  drafts: string[];
  published: string[];
}

/** A library file as `mediaUses` finds it: attached by id, or named as a video's poster by its path. */
export interface UsedMedia {
  _id: Types.ObjectId;
  path?: string | null | undefined;
}

/**
 * Where each media is used, in two reads of the organization's live parts sent together: those
 * that attach any of them, and those whose video names one as its poster (`media.thumbnail`, the
 * image's path, post-posters.ts). A part of a thread counts as its root post.
 */
export async function mediaUses(
  db: Database,
  organizationId: string,
  media: readonly UsedMedia[],
): Promise<Map<string, MediaUse>> {
  const uses = new Map<string, MediaUse>(media.map((one) => [one._id.toHexString(), {
    scheduled: [], drafts: [], published: [],
  }]));
  if (media.length === 0) return uses;
  const idOfPath = new Map(media.flatMap((one) => (typeof one.path === 'string' && one.path !== ''
    ? [[one.path, one._id.toHexString()] as const] : [])));
  const live = { organizationId: new Types.ObjectId(organizationId), deletedAt: null };
  const projection = { _id: 1, rootPostId: 1, state: 1, media: 1 };
  const [attaching, posterUsing] = await Promise.all([
    db.posts.find({ ...live, 'media.id': { $in: [...uses.keys()] } }, projection).lean(),
    idOfPath.size === 0
      ? Promise.resolve([])
      : db.posts.find({ ...live, 'media.thumbnail': { $in: [...idOfPath.keys()] } }, projection).lean(),
  ]);
  for (const part of [...attaching, ...posterUsing]) {
    const postId = (part.rootPostId ?? part._id).toHexString();
    const usedIds = part.media.flatMap((attached) => [attached.id, idOfPath.get(attached.thumbnail ?? '') ?? '']);
    for (const id of usedIds) {
      const use = uses.get(id);
      if (use === undefined) continue;
      const list = part.state === 'QUEUE' ? use.scheduled : part.state === 'DRAFT' ? use.drafts : use.published;
      if (!list.includes(postId)) list.push(postId);
    }
  }
  return uses;
}

/**
 * Deletes a media and its stored files, unless a scheduled post attaches it or shows it as a
 * video's poster: that post would then fail (or lose its poster) when it is due, so the answer
 * names the posts to edit or delete first. Drafts and published
 * posts do not hold it (a draft is checked again when scheduled; platforms keep their own copy).
 */
export async function deleteUnusedMedia(
  deps: { db: Database; storage: Storage },
  organizationId: string,
  mediaId: string,
): Promise<{ id: string; deleted: true }> {
  const media = await findOwnedMedia(deps.db, organizationId, mediaId);
  const id = media._id.toHexString();
  const scheduled = (await mediaUses(deps.db, organizationId, [media])).get(id)?.scheduled ?? [];
  if (scheduled.length > 0) {
    throw new DomainError(
      'media_in_use',
      `media ${id} is used by ${String(scheduled.length)} scheduled post(s): `
        + `${scheduled.slice(0, 10).join(', ')}; edit or delete them first`,
    );
  }
  return deleteMedia(deps, organizationId, id);
}
