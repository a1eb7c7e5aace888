import type { Database } from '../../db/database.ts';
import { headBytes, imageDimensions, readHead } from '../../media/image-dimensions.ts';
import { probeMedia, posterFrame } from '../../media/media-probe.ts';
import {
  MediaToolFailure, MediaToolMissing, MediaToolTimeout, type MediaToolCommands,
} from '../../media/media-tool.ts';
import type { MediaSizeLimits } from '../../media/media-types.ts';
import { FetchFailure, safeFetch, type SafeFetchOptions } from '../../net/safe-fetch.ts';
import { derivedObjectKey } from '../../storage/object-key.ts';
import type { Storage } from '../../storage/storage.ts';
import { DomainError } from '../../errors.ts';
import { notify } from '../notifications/notifications.ts';
import { streamIntoStorage } from './store-media.ts';
import { mediaView, type StoredMedia } from './media-view.ts';
import type { WebhookEvents } from '../webhooks/webhook-outbox.ts';

export interface MediaProcessingDeps {
  db: Database;
  storage: Storage;
  limits: MediaSizeLimits;
  fetch: Omit<SafeFetchOptions, 'maxBytes'>;
  /** Time limit of each ffprobe and ffmpeg run (FFPROBE_TIMEOUT_MS). */
  mediaToolTimeoutMs: number;
  /** FFPROBE_PATH and FFMPEG_PATH. */
  mediaTools: MediaToolCommands;
  /** media.ready and media.failed are told to the organization's endpoints. */
  webhooks: WebhookEvents;
}

/** The reason of a media the server could not inspect (a tool missing): the operator's to fix, not the user's. */
const mediaInspectionUnavailable = 'media_inspection_unavailable';

/** The spec's wording for a video ffprobe cannot read. */
export const unreadableVideoMessage = 'Failed to load video metadata';

class MediaFailure extends Error {
  readonly reason: string;
  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

async function fetchIntoStorage(deps: MediaProcessingDeps, media: StoredMedia): Promise<Partial<StoredMedia>> {
  const sourceUrl = media.sourceUrl ?? '';
  try {
    const fetched = await safeFetch(sourceUrl, { ...deps.fetch, maxBytes: Math.max(deps.limits.maxImageBytes, deps.limits.maxVideoBytes) });
    const stored = await streamIntoStorage(deps.storage, fetched.body, deps.limits);
    return { storageKey: stored.key, path: stored.url, mimeType: stored.type.mimeType, size: stored.size };
  } catch (error) {
    if (error instanceof FetchFailure) throw new MediaFailure(`fetch_failed:${error.reason}`, `fetch failed (${error.reason}): ${error.message}`, { cause: error });
    if (error instanceof DomainError && error.code === 'payload_too_large') throw new MediaFailure('fetch_failed:too_large', `fetch failed (too_large): ${error.message}`, { cause: error });
    if (error instanceof DomainError && error.code === 'unsupported_file_type') throw new MediaFailure('fetch_failed:unsupported_type', `fetch failed (unsupported_type): ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * A failure of ffprobe or ffmpeg is the media's (it will fail the same way again), so the media
 * is failed at once rather than retried; a timeout says so. Anything else (storage, network) is
 * left to the job's retries.
 */
function asMediaFailure(error: unknown, unreadable: string): never {
  if (error instanceof MediaToolTimeout) {
    const seconds = +(error.timeoutMs / 1000).toFixed(1);
    const message = `${unreadable}: ${error.tool} took longer than ${seconds} s`;
    throw new MediaFailure('unreadable_media:timeout', message, { cause: error });
  }
  if (error instanceof MediaToolFailure) throw new MediaFailure('unreadable_media', unreadable, { cause: error });
  if (error instanceof MediaToolMissing) {
    const message = `this server cannot inspect media: ${error.message}; upload the file again once it is installed`;
    throw new MediaFailure(mediaInspectionUnavailable, message, { cause: error });
  }
  throw error;
}

async function inspect(deps: MediaProcessingDeps, key: string, mimeType: string): Promise<Partial<StoredMedia>> {
  const isVideo = mimeType.startsWith('video/');
  if (!isVideo) {
    // Of an image only its size is kept, and its header says it: read in-process, that takes
    // microseconds where starting ffprobe takes 100-300 ms of the upload's answer. A storage error
    // here is not the media's and propagates to the job's retries, as readableLocation's does.
    const dimensions = imageDimensions(await readHead(await deps.storage.get(key), headBytes));
    if (dimensions !== null) return dimensions;
    // A header not read here goes to ffprobe as before, and gets the verdict it always got.
  }
  const location = await deps.storage.readableLocation(key);
  const unreadable = isVideo ? unreadableVideoMessage : 'Failed to read the image';
  let probe;
  try {
    probe = await probeMedia(location, { timeoutMs: deps.mediaToolTimeoutMs, tools: deps.mediaTools });
  } catch (error) {
    asMediaFailure(error, unreadable);
  }
  if (!isVideo) return { width: probe.width, height: probe.height };
  if (probe.videoCodec === null || probe.width === null || probe.height === null || probe.durationSeconds === null) {
    throw new MediaFailure('unreadable_media', unreadableVideoMessage);
  }
  const thumbnailKey = derivedObjectKey(key, 'poster', 'jpg');
  // A frame a second in (or at the very start of short clips) is rarely a black fade-in.
  const at = Math.min(1, probe.durationSeconds / 2);
  const frame = posterFrame(location, at, deps.mediaToolTimeoutMs, deps.mediaTools);
  let poster;
  try {
    poster = await deps.storage.put(thumbnailKey, frame, { contentType: 'image/jpeg' });
  } catch (error) {
    asMediaFailure(error, unreadable);
  }
  return {
    width: probe.width,
    height: probe.height,
    durationSeconds: probe.durationSeconds,
    videoCodec: probe.videoCodec,
    videoProfile: probe.videoProfile,
    audioCodec: probe.audioCodec,
    frameRate: probe.frameRate,
    bitRate: probe.bitRate,
    thumbnailKey,
    thumbnail: poster.url,
  };
}

/**
 * Told the failure behind a failed media, with its causes: the stored error is what the
 * organization may read, the causes (the addresses a refused name resolved to, the system
 * error) are for the workers' log only.
 */
export type MediaFailureReport = (failure: Error) => void;

/**
 * The media worker's job: fetch the source (for upload-from-url), inspect the stored bytes, and
 * mark the media ready; or mark it failed with a reason, remove what was stored, and tell the
 * organization.
 */
export async function processMedia(
  deps: MediaProcessingDeps,
  mediaId: string,
  kind: 'import' | 'inspect',
  reportFailure: MediaFailureReport = () => undefined,
): Promise<StoredMedia | null> {
  const media = await deps.db.media.findById(mediaId).lean();
  if (media === null || media.status !== 'pending') return media;
  let changes: Partial<StoredMedia> = {};
  try {
    if (kind === 'import') changes = await fetchIntoStorage(deps, media);
    const key = changes.storageKey ?? media.storageKey;
    const mimeType = changes.mimeType ?? media.mimeType;
    if (key === null || key === undefined || mimeType === null || mimeType === undefined) throw new MediaFailure('unreadable_media', 'the media has no stored file');
    changes = { ...changes, ...(await inspect(deps, key, mimeType)), status: 'ready', error: null, errorReason: null };
  } catch (error) {
    if (!(error instanceof MediaFailure)) throw error;
    reportFailure(error);
    for (const key of [changes.storageKey ?? media.storageKey, changes.thumbnailKey ?? media.thumbnailKey]) {
      if (key !== null && key !== undefined) await deps.storage.delete(key);
    }
    changes = { status: 'failed', error: error.message, errorReason: error.reason, storageKey: null, path: null, thumbnailKey: null, thumbnail: null };
    const what = media.sourceUrl === null || media.sourceUrl === undefined ? `the upload of ${media.originalName ?? media.name}` : `the upload from ${media.sourceUrl}`;
    await notify(deps.db, media.organizationId.toString(), { content: `Media could not be added: ${what} failed: ${error.message}`, link: null });
  }
  const settled = await deps.db.media
    .findOneAndUpdate({ _id: media._id }, { $set: changes }, { returnDocument: 'after' })
    .lean();
  // After the state it reports: a receiver that asks for the media finds it ready (or failed).
  if (settled?.status === 'ready' || settled?.status === 'failed') {
    const type = settled.status === 'ready' ? 'media.ready' : 'media.failed';
    await deps.webhooks.emit(settled.organizationId.toString(), type, mediaView(settled));
  }
  return settled;
}
