import { Readable } from 'node:stream';
import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import type { RedditApi } from './reddit-api.ts';
import { provider, unreadable } from './reddit-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

/**
 * Media go to Reddit through an upload lease (open-and-community.md 6.3):
 * 1. `POST /api/media/asset.json` {filepath, mimetype} answers the storage host's form
 *    (`args.action`, protocol-relative, and `args.fields`) and the asset's id;
 * 2. the file is POSTed to that host as a form with every field, then `file` last (S3's rule);
 * 3. the submission names the file by `<action>/<key>` (image and video posts) or by the asset
 *    id (gallery items).
 */
const leaseAnswer = z.object({
  args: z.object({
    action: z.string().min(1),
    fields: z.array(z.object({ name: z.string().min(1), value: z.string() })),
  }),
  asset: z.object({ asset_id: z.string().min(1) }).loose(),
});

export interface UploadedAsset {
  /** Where the file is stored, for `url` / `video_poster_url`. */
  url: string;
  /** For gallery items' `media_id`. */
  assetId: string;
}

/** The largest poster frame read into memory; the media worker's frames are far smaller. */
const maxPosterBytes = 20 * 1024 * 1024;

/** The storage host answers in S3's XML: `<Error><Code>EntityTooLarge</Code><Message>...`. */
function storageErrorMessage(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  const code = /<Code>([^<]*)<\/Code>/.exec(body)?.[1];
  const message = /<Message>([^<]*)<\/Message>/.exec(body)?.[1];
  if (code === undefined && message === undefined) return undefined;
  return `Reddit's media storage refused the file: ${message ?? ''} (${code ?? 'no code'})`;
}

/**
 * A lease whose signed policy ran out (403 AccessDenied, "Policy expired") is renewed by
 * another attempt, which asks for a new lease; a file too large or of a type the policy does
 * not allow is refused the same way again.
 */
function classifyStorage(status: number, body: unknown): PlatformErrorKind | undefined {
  if (status === 403 && typeof body === 'string' && /expired/i.test(body)) return 'retryable';
  return undefined;
}

async function uploadAsset(api: RedditApi, token: string, file: PublishMedia): Promise<UploadedAsset> {
  const lease = await api.read(token, {
    method: 'POST',
    path: '/api/media/asset.json',
    form: { filepath: file.fileName, mimetype: file.mimeType },
  }, leaseAnswer, 'an upload lease');
  // `//host/path` takes the API's scheme: https against Reddit, http against a local simulator.
  const action = URL.parse(lease.args.action, api.apiUrl);
  const fields = Object.fromEntries(lease.args.fields.map((field) => [field.name, field.value]));
  const key = fields.key;
  if (action === null || !/^https?:$/.test(action.protocol) || key === undefined) {
    throw unreadable('an upload lease');
  }
  await platformRequest({
    provider,
    serverName: 'Reddit\'s media storage',
    method: 'POST',
    url: action.href,
    headers: { 'User-Agent': api.userAgent },
    multipart: { fields, fileField: 'file', file },
    // A video takes longer to send than an API call to answer: allow for a slow 1 MB a second.
    timeoutMs: api.timeoutMs + Math.ceil(file.size / 1_000),
    errorMessage: storageErrorMessage,
    classify: classifyStorage,
  });
  return { url: `${action.href.replace(trailingSlashes, '')}/${key}`, assetId: lease.asset.asset_id };
}

/**
 * The frame the media worker took from the video, read whole (it is one small JPEG) so it can be
 * sent with its exact length like any other file.
 */
async function posterOf(video: PublishMedia): Promise<PublishMedia> {
  const poster = video.poster;
  if (poster === undefined) {
    const message = `Reddit needs a poster image with a video, and SPS has no frame of ${video.fileName}; `
      + 'upload the video again';
    throw new PlatformError({ kind: 'permanent', provider, message });
  }
  const stream = await poster.open();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += bytes.length;
    if (size > maxPosterBytes) {
      stream.destroy();
      const message = `the poster of ${video.fileName} is too large`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    chunks.push(bytes);
  }
  const bytes = Buffer.concat(chunks);
  return {
    kind: 'image',
    mimeType: poster.mimeType,
    size: bytes.length,
    fileName: poster.fileName,
    alt: null,
    url: poster.url,
    open: () => Promise.resolve(Readable.from([bytes])),
  };
}

export interface PartMedia {
  assets: UploadedAsset[];
  /** The video's poster, for `video_poster_url`; null without a video. */
  posterUrl: string | null;
}

/** What an earlier attempt stored under `name`, from the checkpoint. */
function held(checkpoint: PartCheckpoint, name: string): UploadedAsset | null {
  const url = checkpoint.values[`${name}Url`] ?? '';
  const assetId = checkpoint.values[`${name}Asset`] ?? '';
  return url === '' || assetId === '' ? null : { url, assetId };
}

/** A file, uploaded once: a retry takes what an earlier attempt stored from the checkpoint. */
async function once(
  checkpoint: PartCheckpoint,
  name: string,
  upload: () => Promise<UploadedAsset>,
): Promise<UploadedAsset> {
  const earlier = held(checkpoint, name);
  if (earlier !== null) return earlier;
  const asset = await upload();
  await checkpoint.save({ [`${name}Url`]: asset.url, [`${name}Asset`]: asset.assetId });
  return asset;
}

/**
 * The part's files on Reddit's storage, in order, with a video's poster. Each is checkpointed
 * once stored, so an attempt after a failure (a refused submission, a lost answer, a worker
 * that died) submits what earlier attempts stored instead of uploading it again.
 */
export async function uploadPartMedia(
  api: RedditApi,
  token: string,
  media: readonly PublishMedia[],
  checkpoint: PartCheckpoint,
): Promise<PartMedia> {
  const assets: UploadedAsset[] = [];
  let posterUrl: string | null = null;
  for (const [index, item] of media.entries()) {
    const needsPoster: boolean = item.kind === 'video' && posterUrl === null;
    // Read before the video goes up: a video without a poster would only be refused after it.
    const earlierPoster: UploadedAsset | null = needsPoster ? held(checkpoint, 'poster') : null;
    const poster: PublishMedia | null = needsPoster && earlierPoster === null ? await posterOf(item) : null;
    assets.push(await once(checkpoint, `media${String(index)}`, () => uploadAsset(api, token, item)));
    if (earlierPoster !== null) posterUrl = earlierPoster.url;
    if (poster !== null) posterUrl = (await once(checkpoint, 'poster', () => uploadAsset(api, token, poster))).url;
  }
  return { assets, posterUrl };
}
