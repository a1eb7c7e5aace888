import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { findEachById } from '../../db/equality-queries.ts';
import { asObjectId, distinctObjectIds } from '../../db/object-id.ts';
import { DomainError, type ErrorDetail } from '../../errors.ts';
import type { AwaitedJob } from '../../queue/awaited-job.ts';
import type { MediaJobPayload } from '../../queue/queues.ts';
import { parseRemoteMediaUrl } from '../media/remote-media-url.ts';
import { recordRemoteMedia } from '../media/store-media.ts';
import { failedMediaCode, type MediaView, type StoredMedia } from '../media/media-view.ts';
import type { ChannelPostInput, MediaReference } from './post-input.ts';

/**
 * How a post's `image[]` items become media of the library (CONTRACT, "Create post body"):
 *
 * - an `id` of the organization's library is used, written as the library writes it (ids are
 *   matched case-insensitively, like every id of the API, and stored lower-case, so the publish
 *   worker finds what the create found);
 * - an unknown `id` whose `path` is an http(s) URL is imported: recorded as pending media,
 *   fetched by the media worker (which alone decides whether the address may be fetched: https,
 *   public, on every hop) and the post refers to the new media. The api waits for the import as
 *   long as upload-from-url does (MEDIA_WAIT_MS): a failed import is answered at once (422), a
 *   finished one is checked against the platform's rules like any upload, and one still running
 *   is kept pending: the publish job waits for it (`importedMediaState`);
 * - anything else is 400 `unknown_media`, and so is media whose processing failed.
 */

/** Imports one request may start: each is a fetch, so a request cannot order thousands. */
export const maxImportsPerRequest = 20;

/** How long the publish job waits for media still importing before it fails the post. */
export const importDeadlineMs = 30 * 60_000;

/** How often a waiting publish job looks again. */
const importPollMs = 5_000;

/** The media queue as post creation uses it (the same wait as upload-from-url). */
export interface MediaImports {
  mediaQueue: { processAndWait(payload: MediaJobPayload, timeoutMs: number): Promise<AwaitedJob> };
  mediaWaitMs: number;
}

export interface ResolvedPostMedia {
  /** The posts with every image naming a library media by its canonical id. */
  posts: ChannelPostInput[];
  /** The library records the posts refer to, by canonical id (ready or still importing). */
  library: Map<string, StoredMedia>;
}

interface Reference { postIndex: number; partIndex: number; imageIndex: number; image: MediaReference }

const referencePath = (reference: Reference): string =>
  `posts.${reference.postIndex}.value.${reference.partIndex}.image.${reference.imageIndex}`;

/** A URL the media worker may be asked to fetch; anything else cannot be imported. */
function importableUrl(path: string): URL | null {
  try {
    const url = parseRemoteMediaUrl(path);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
}

async function importOne(
  deps: MediaImports,
  db: Database,
  organizationId: string,
  url: URL,
  path: string,
): Promise<StoredMedia> {
  const media = await recordRemoteMedia(db, organizationId, url);
  const mediaId = media._id.toString();
  const outcome = await deps.mediaQueue.processAndWait({ organizationId, mediaId, kind: 'import' }, deps.mediaWaitMs);
  if (outcome.finished) {
    const view = outcome.result as MediaView | null;
    if (view?.status === 'failed') {
      const code = failedMediaCode(view.reason);
      throw new DomainError(
        code,
        `${path}: the image at ${url.href} could not be imported: ${view.error ?? 'the media could not be processed'}`,
        [{ path, message: view.reason ?? 'import failed' }],
      );
    }
  }
  return (await db.media.findById(media._id).lean()) ?? media;
}

/**
 * Resolves every `image[]` item of the posts against the organization's library, importing the
 * unknown ones given by URL when `imports` is given (the api; scripts that create posts
 * directly pass none and get `unknown_media`).
 */
export async function resolvePostMedia(
  db: Database,
  organizationId: Types.ObjectId,
  posts: ChannelPostInput[],
  imports?: MediaImports,
): Promise<ResolvedPostMedia> {
  const references: Reference[] = posts.flatMap((post, postIndex) => post.value.flatMap((part, partIndex) =>
    part.image.map((image, imageIndex) => ({ postIndex, partIndex, imageIndex, image }))));
  if (references.length === 0) return { posts, library: new Map() };

  const ids = distinctObjectIds(references.map((reference) => reference.image.id));
  const found = await findEachById(db.media, ids, { organizationId });
  const library = new Map<string, StoredMedia>(found.map((media) => [media._id.toString(), media]));
  const canonical = (reference: Reference): string | undefined => asObjectId(reference.image.id)?.toString();

  const problems: ErrorDetail[] = [];
  const toImport = new Map<string, { url: URL; path: string }>();
  for (const reference of references) {
    const id = canonical(reference);
    const media = id === undefined ? undefined : library.get(id);
    if (media?.status === 'failed') {
      problems.push({
        path: referencePath(reference),
        message: `media ${reference.image.id} could not be processed (${media.error ?? 'failed'}); upload it again`,
      });
    } else if (media === undefined) {
      const url = imports === undefined ? null : importableUrl(reference.image.path);
      if (url === null) {
        problems.push({
          path: referencePath(reference),
          message: `media ${JSON.stringify(reference.image.id)} is not in your media library `
            + 'and its path is not a URL to import',
        });
      } else if (!toImport.has(url.href)) toImport.set(url.href, { url, path: referencePath(reference) });
    }
  }
  if (problems.length > 0) {
    throw new DomainError(
      'unknown_media',
      `${problems[0]?.path ?? 'image'}: ${problems[0]?.message ?? 'unknown media'}; `
        + 'upload it first and use the returned id and path, or give a public https URL as its path',
      problems,
    );
  }
  if (toImport.size > maxImportsPerRequest) {
    throw new DomainError(
      'validation_failed',
      `a request can import at most ${maxImportsPerRequest} images by URL (this one names ${toImport.size}); `
        + 'upload the others first',
    );
  }

  const imported = new Map<string, StoredMedia>();
  if (imports !== undefined && toImport.size > 0) {
    // Settled one by one, so the first failure is reported with its own path, not a lost rejection.
    const outcomes = await Promise.allSettled(
      [...toImport.values()].map(({ url, path }) => importOne(imports, db, organizationId.toString(), url, path)),
    );
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    [...toImport.keys()].forEach((href, index) => {
      const outcome = outcomes[index];
      if (outcome?.status === 'fulfilled') {
        imported.set(href, outcome.value);
        library.set(outcome.value._id.toString(), outcome.value);
      }
    });
  }

  const resolve = (image: MediaReference): MediaReference => {
    const id = asObjectId(image.id)?.toString();
    if (id !== undefined && library.has(id)) return { ...image, id };
    const url = importableUrl(image.path);
    const media = url === null ? undefined : imported.get(url.href);
    if (media === undefined) throw new Error(`media ${image.id} was neither found nor imported`);
    // The library's own URL once the file is stored; the given one while the import runs.
    return { ...image, id: media._id.toString(), path: media.path ?? image.path };
  };
  const resolved = posts.map((post) => ({
    ...post,
    value: post.value.map((part) => ({ ...part, image: part.image.map(resolve) })),
  }));
  return { posts: resolved, library };
}

export type ImportedMediaState =
  | { kind: 'ready' }
  | { kind: 'waiting'; until: Date }
  | { kind: 'failed'; message: string };

/**
 * Whether the media a post is about to publish are ready. Media still importing make the job
 * wait (a few seconds at a time, for at most `importDeadlineMs` after the import started); a
 * failed import fails the post with the reason.
 */
export async function importedMediaState(
  db: Database,
  organizationId: Types.ObjectId,
  references: { id: string }[],
  now: Date,
): Promise<ImportedMediaState> {
  const ids = distinctObjectIds(references.map((reference) => reference.id));
  if (ids.length === 0) return { kind: 'ready' };
  const media = await findEachById(db.media, ids, { organizationId, status: { $ne: 'ready' } });
  const failed = media.find((item) => item.status === 'failed');
  if (failed !== undefined) {
    const source = failed.sourceUrl ?? failed.originalName ?? failed._id.toString();
    return {
      kind: 'failed',
      message: `the image at ${source} could not be imported: ${failed.error ?? 'the media could not be processed'}; `
        + 'the post was not published without it',
    };
  }
  const pending = media.filter((item) => item.status === 'pending');
  if (pending.length === 0) return { kind: 'ready' };
  const oldest = Math.min(...pending.map((item) => item.createdAt.getTime()));
  if (now.getTime() - oldest > importDeadlineMs) {
    const source = pending[0]?.sourceUrl ?? pending[0]?._id.toString() ?? 'an image';
    return {
      kind: 'failed',
      message: `the image at ${source} was still being imported ${importDeadlineMs / 60_000} minutes later; `
        + 'the post was not published without it',
    };
  }
  return { kind: 'waiting', until: new Date(now.getTime() + importPollMs) };
}
