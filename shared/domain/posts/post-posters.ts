import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { asObjectId } from '../../db/object-id.ts';
import { DomainError, type ErrorDetail } from '../../errors.ts';
import type { StoredMedia } from '../media/media-view.ts';
import type { ChannelPostInput } from './post-input.ts';

/**
 * A video's poster: POST /posts `image[].thumbnail`, an image of the organization's media library
 * that platforms taking a custom cover show instead of the frame SPS took from the video
 * (YouTube's thumbnails.set, Reddit's `video_poster_url`).
 *
 * - The thumbnail names the image by its `path` (what POST /upload answered) or its `id`; it is
 *   stored as the path, so GET /posts shows a URL whichever was given.
 * - The video's own poster frame (its upload's `thumbnail`, which clients echo back) is accepted
 *   and changes nothing: the frame stays the poster. An empty string is no thumbnail.
 * - Anything else is refused with 400 `validation_failed` before anything is stored: a thumbnail
 *   on media that is not a video, or one that is not a ready JPEG or PNG image of at most 2 MB of
 *   the organization's library. JPEG and PNG of 2 MB are what YouTube's thumbnails.set takes, the
 *   strictest of the platforms that use posters, so a poster accepted here is one they all take.
 */

export const posterTypes: readonly string[] = ['image/jpeg', 'image/png'];
export const maxPosterBytes = 2 * 1024 * 1024;

/** Distinct posters one request may name: each is one indexed query. */
export const maxPostersPerRequest = 20;

/**
 * The library media the given thumbnails name, keyed by the string given: an id is looked up by
 * `_id`, anything else by path (`{organizationId, path}`, indexed). One query each, sent together.
 */
export async function findPosterImages(
  db: Database,
  organizationId: Types.ObjectId,
  named: readonly string[],
): Promise<Map<string, StoredMedia>> {
  const found = await Promise.all([...new Set(named)].map(async (value) => {
    const id = asObjectId(value);
    const filter = id === null ? { organizationId, path: value } : { organizationId, _id: id };
    return [value, await db.media.findOne(filter).lean<StoredMedia>()] as const;
  }));
  return new Map(found.flatMap(([value, media]) => (media === null ? [] : [[value, media] as const])));
}

/** Why `media` cannot be a poster, or null when it can. */
export function posterProblem(media: StoredMedia | undefined): string | null {
  if (media === undefined) {
    return 'is not an image of your media library: upload it first (POST /upload), then give its path or id';
  }
  if (media.status !== 'ready') return `names media ${media._id.toHexString()}, which is not ready (${media.status})`;
  const type = media.mimeType ?? 'an unknown type';
  if (!type.startsWith('image/')) return `names media of type ${type}; a poster is an image`;
  if (!posterTypes.includes(type)) return `names a ${type} image; a poster must be a JPEG or PNG image`;
  if ((media.size ?? 0) > maxPosterBytes) {
    const megabytes = ((media.size ?? 0) / (1024 * 1024)).toFixed(1);
    return `names an image of ${megabytes} MB; a poster can be at most 2 MB`;
  }
  return null;
}

/** A thumbnail that asks for nothing: none, empty, or the video's own poster frame. */
function asksNothing(thumbnail: string | undefined, video: StoredMedia | undefined): boolean {
  return thumbnail === undefined || thumbnail === '' || (video?.thumbnail ?? null) === thumbnail;
}

export interface CheckedPosters {
  /** The posts with each thumbnail written as its image's path (empty ones removed). */
  posts: ChannelPostInput[];
  failure: DomainError | null;
}

/**
 * Checks the thumbnails of the request (`given`, whose indexes the error paths name) against the
 * library, and writes them into the resolved posts (post-media.ts) as the images' paths.
 * `library` holds the media the images name, by canonical id; one still importing (by URL) has no
 * known kind yet, so only its thumbnail is judged, and the publish worker uses the poster only if
 * it turns out a video.
 */
export async function checkPosters(
  db: Database,
  organizationId: Types.ObjectId,
  given: readonly ChannelPostInput[],
  resolved: ChannelPostInput[],
  library: ReadonlyMap<string, StoredMedia>,
): Promise<CheckedPosters> {
  const videoOf = (id: string) => library.get(asObjectId(id)?.toHexString() ?? '');
  const wanted = given.flatMap((post, postIndex) => post.value.flatMap((part, partIndex) =>
    part.image.flatMap((image, imageIndex) => (asksNothing(image.thumbnail, videoOf(image.id)) ? [] : [{
      path: `posts.${postIndex}.value.${partIndex}.image.${imageIndex}.thumbnail`,
      thumbnail: image.thumbnail ?? '',
      video: videoOf(image.id),
    }]))));
  if (wanted.length === 0) return { posts: withPosterPaths(resolved, new Map()), failure: null };
  const distinct = new Set(wanted.map((item) => item.thumbnail));
  if (distinct.size > maxPostersPerRequest) {
    const message = `a request can name at most ${maxPostersPerRequest} different posters (this one names `
      + `${distinct.size})`;
    return { posts: resolved, failure: new DomainError('validation_failed', message, [{ path: 'posts', message }]) };
  }
  const posters = await findPosterImages(db, organizationId, [...distinct]);
  const problems: ErrorDetail[] = wanted.flatMap(({ path, thumbnail, video }) => {
    const kind = video?.mimeType ?? null;
    if (kind !== null && !kind.startsWith('video/')) {
      return [{ path, message: `a thumbnail is the poster of a video, and media ${video?._id.toHexString() ?? ''} `
        + `is ${kind}` }];
    }
    const problem = posterProblem(posters.get(thumbnail));
    return problem === null ? [] : [{ path, message: `thumbnail ${JSON.stringify(thumbnail)} ${problem}` }];
  });
  const [first] = problems;
  if (first !== undefined) {
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    return {
      posts: resolved,
      failure: new DomainError('validation_failed', `${first.path}: ${first.message}${more}`, problems),
    };
  }
  const paths = new Map([...posters].flatMap(([named, media]) => (media.path === null || media.path === undefined
    ? [] : [[named, media.path] as const])));
  return { posts: withPosterPaths(resolved, paths), failure: null };
}

/** The posts with each thumbnail named by its image's path; empty thumbnails left out. */
function withPosterPaths(posts: ChannelPostInput[], paths: ReadonlyMap<string, string>): ChannelPostInput[] {
  return posts.map((post) => ({
    ...post,
    value: post.value.map((part) => ({
      ...part,
      image: part.image.map(({ thumbnail, ...image }) => (thumbnail === undefined || thumbnail === ''
        ? image
        : { ...image, thumbnail: paths.get(thumbnail) ?? thumbnail })),
    })),
  }));
}
