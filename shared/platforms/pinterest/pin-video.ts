import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { provider, type PinterestApi } from './pinterest-api.ts';

/**
 * A video for a pin (design-blogging-business.md 1.3): `POST /v5/media` registers it and names
 * an upload URL with the fields its form must carry (a presigned S3 POST), the file goes there,
 * then `GET /v5/media/{id}` is read until Pinterest has processed it.
 */

const registered = z.object({
  media_id: z.string().min(1),
  upload_url: z.url(),
  upload_parameters: z.record(z.string(), z.string()),
});

const mediaStatus = z.object({
  media_id: z.string().optional(),
  status: z.enum(['registered', 'processing', 'succeeded', 'failed']),
});

/** Checkpoint keys: the registered media's id, then '1' once its file reached the upload host. */
const mediaIdKey = 'videoMediaId';
const uploadedKey = 'videoUploaded';

/**
 * How often the media's status is read: at once, then after `firstWaitMs`, doubling up to
 * `maxIntervalMs`, for at most `maxWaitMs` in one attempt. Pinterest names no pace; a short
 * clip is ready within seconds, and a long one is looked at again by a later attempt.
 */
export interface VideoPolling {
  firstWaitMs: number;
  maxIntervalMs: number;
  maxWaitMs: number;
}

export const defaultVideoPolling: VideoPolling = { firstWaitMs: 1_000, maxIntervalMs: 20_000, maxWaitMs: 3 * 60_000 };

/** A video still processing when an attempt's wait ends: the job looks again this much later. */
const stillProcessingRetryMs = 30_000;

const sleep = (ms: number) => new Promise<void>((resolve) => { setTimeout(resolve, ms); });

/** S3's refusal is XML: `<Error><Code>…</Code><Message>…</Message></Error>`. */
function uploadHostMessage(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  const message = /<Message>([^<]*)<\/Message>/.exec(body)?.[1];
  return message === undefined ? undefined : `Pinterest's upload host refused the video: ${message}`;
}

/**
 * A refused upload is retried from a new registration (the next attempt finds this one still
 * `registered`): a presigned policy that expired, or a denied signature, does not outlive it. A
 * file the host finds too large stays too large.
 */
function classifyUploadRefusal(status: number, body: unknown): PlatformErrorKind | undefined {
  if (typeof body === 'string' && body.includes('<Code>EntityTooLarge</Code>')) return 'permanent';
  return status === 400 || status === 403 ? 'retryable' : undefined;
}

async function readStatus(api: PinterestApi, mediaId: string): Promise<z.infer<typeof mediaStatus>['status']> {
  const path = `/v5/media/${encodeURIComponent(mediaId)}`;
  return (await api({ method: 'GET', path }, mediaStatus, 'a media status')).status;
}

async function registerAndUpload(
  api: PinterestApi,
  video: PublishMedia,
  checkpoint: PartCheckpoint,
  timeoutMs: number,
): Promise<string> {
  const made = await api({ method: 'POST', path: '/v5/media', json: { media_type: 'video' } }, registered, 'a media');
  await checkpoint.save({ [mediaIdKey]: made.media_id, [uploadedKey]: '' });
  // The upload host is S3, not Pinterest: its form carries its own signature, and no bearer token goes there.
  await platformRequest({
    provider,
    serverName: 'Pinterest\'s upload host',
    method: 'POST',
    url: made.upload_url,
    multipart: { fields: made.upload_parameters, fileField: 'file', file: video },
    // About a megabyte a second on top of the usual wait.
    timeoutMs: timeoutMs + Math.ceil(video.size / 1_000),
    errorMessage: uploadHostMessage,
    classify: classifyUploadRefusal,
  });
  await checkpoint.save({ [uploadedKey]: '1' });
  return made.media_id;
}

/**
 * The id of the part's video once Pinterest has processed it. Registration and upload are each
 * checkpointed: a retry after the upload reached the host polls the same media; a retry that
 * finds the media still `registered` (the upload never arrived) registers a new one, leaving the
 * first unused, which makes no pin.
 */
export async function processedVideo(
  api: PinterestApi,
  video: PublishMedia,
  checkpoint: PartCheckpoint,
  timing: { timeoutMs: number; polling: VideoPolling },
): Promise<string> {
  let mediaId = checkpoint.values[mediaIdKey] ?? '';
  if (mediaId !== '' && checkpoint.values[uploadedKey] !== '1') {
    if ((await readStatus(api, mediaId)) === 'registered') mediaId = '';
    else await checkpoint.save({ [uploadedKey]: '1' });
  }
  if (mediaId === '') mediaId = await registerAndUpload(api, video, checkpoint, timing.timeoutMs);

  const { polling } = timing;
  const deadline = Date.now() + polling.maxWaitMs;
  let wait = polling.firstWaitMs;
  for (;;) {
    const status = await readStatus(api, mediaId);
    if (status === 'succeeded') return mediaId;
    if (status === 'failed') {
      const message = `Pinterest could not process the video ${video.fileName}`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    if (Date.now() + wait > deadline) {
      const message = `Pinterest is still processing the video ${video.fileName}; SPS will look again`;
      throw new PlatformError({ kind: 'retryable', provider, message, retryAfterMs: stillProcessingRetryMs });
    }
    await sleep(wait);
    wait = Math.min(wait * 2, polling.maxIntervalMs);
  }
}
