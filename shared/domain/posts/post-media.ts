import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { findEachById } from '../../db/equality-queries.ts';
import { asObjectId, distinctObjectIds } from '../../db/object-id.ts';
import { DomainError, type ErrorDetail } from '../../errors.ts';
import type { AwaitedJob } from '../awaited-job.ts';
import type { MediaJobRequest } from '../media/media-job.ts';
import { parseRemoteMediaUrl } from '../media/remote-media-url.ts';
import { recordRemoteMedia, remoteMediaEntry } from '../media/store-media.ts';
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
 *   is kept pending: the publish job waits for it (`importedMediaState`). A dry run
 *   (`POST /posts/validate`) imports nothing: it checks the post as if the import were running;
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
  mediaQueue: { processAndWait(payload: MediaJobRequest, timeoutMs: number): Promise<AwaitedJob> };
  mediaWaitMs: number;
}

/**
 * What becomes of an unknown `id` whose `path` is a URL: imported (the api creating posts), taken
 * as an import still running without recording or fetching anything (`dry-run`), or refused
 * (undefined: scripts that create posts directly).
 */
export type MediaByUrl = MediaImports | 'dry-run' | undefined;

export interface ResolvedPostMedia {
  /**
   * The posts with every image naming a library media by its canonical id. Images with a problem
   * are left out: only a dry run reads the posts after a problem.
   */
  posts: ChannelPostInput[];
  /** The library records the posts refer to, by canonical id (ready, still importing, or to import). */
  library: Map<string, StoredMedia>;
  /** Refusals (unknown media, too many imports), each naming its images; nothing was imported if any. */
  failures: DomainError[];
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
 * Resolves every `image[]` item of the posts against the organization's library, and the unknown
 * ones given by URL as `byUrl` says (MediaByUrl).
 */
export async function resolvePostMedia(
  db: Database,
  organizationId: Types.ObjectId,
  posts: ChannelPostInput[],
  byUrl?: MediaByUrl,
): Promise<ResolvedPostMedia> {
  const references: Reference[] = posts.flatMap((post, postIndex) => post.value.flatMap((part, partIndex) =>
    part.image.map((image, imageIndex) => ({ postIndex, partIndex, imageIndex, image }))));
  if (references.length === 0) return { posts, library: new Map(), failures: [] };

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
      const url = byUrl === undefined ? null : importableUrl(reference.image.path);
      if (url === null) {
        problems.push({
          path: referencePath(reference),
          message: `media ${JSON.stringify(reference.image.id)} is not in your media library `
            + 'and its path is not a URL to import',
        });
      } else if (!toImport.has(url.href)) toImport.set(url.href, { url, path: referencePath(reference) });
    }
  }
  const failures: DomainError[] = [];
  if (problems.length > 0) {
    failures.push(new DomainError(
      'unknown_media',
      `${problems[0]?.path ?? 'image'}: ${problems[0]?.message ?? 'unknown media'}; `
        + 'upload it first and use the returned id and path, or give a public https URL as its path',
      problems,
    ));
  }
  if (toImport.size > maxImportsPerRequest) {
    failures.push(new DomainError(
      'validation_failed',
      `a request can import at most ${maxImportsPerRequest} images by URL (this one names ${toImport.size}); `
        + 'upload the others first',
      [{
        path: 'posts',
        message: `names ${toImport.size} images by URL; at most ${maxImportsPerRequest} are imported`,
      }],
    ));
  }

  const imported = new Map<string, StoredMedia>();
  if (byUrl === 'dry-run') {
    // Unsaved entries, as the import would record them: bounded like imports are.
    const entries = toImport.size > maxImportsPerRequest ? [] : [...toImport];
    for (const [href, { url }] of entries) {
      const pending = remoteMediaEntry(db, organizationId.toString(), url);
      imported.set(href, pending);
      library.set(pending._id.toString(), pending);
    }
  } else if (byUrl !== undefined && failures.length === 0 && toImport.size > 0) {
    const imports = byUrl;
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

  const resolve = (image: MediaReference): MediaReference[] => {
    const id = asObjectId(image.id)?.toString();
    const known = id === undefined ? undefined : library.get(id);
    if (id !== undefined && known !== undefined && known.status !== 'failed') return [{ ...image, id }];
    const url = importableUrl(image.path);
    const media = url === null ? undefined : imported.get(url.href);
    if (media === undefined) {
      if (failures.length > 0) return [];
      throw new Error(`media ${image.id} was neither found nor imported`);
    }
    // The library's own URL once the file is stored; the given one while the import runs.
    return [{ ...image, id: media._id.toString(), path: media.path ?? image.path }];
  };
  const resolved = posts.map((post) => ({
    ...post,
    value: post.value.map((part) => ({ ...part, image: part.image.flatMap(resolve) })),
  }));
  return { posts: resolved, library, failures };
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
