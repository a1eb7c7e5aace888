import { setTimeout as sleep } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { isAccessDenied } from './linkedin-errors.ts';
import { type LinkedinApi, type UploadBody } from './linkedin-http.ts';

/** How long to wait for LinkedIn to process a video before the part is tried again later. */
export interface ProcessingWait {
  pollIntervalMs: number;
  pollTimeoutMs: number;
}

export const defaultProcessingWait: ProcessingWait = { pollIntervalMs: 3_000, pollTimeoutMs: 120_000 };

/** What every upload of one part needs: who owns the media (the post's author) and where to keep handles. */
export interface UploadContext {
  api: LinkedinApi;
  accessToken: string;
  /** `urn:li:person:…` or `urn:li:organization:…`, the same as the post's author. */
  owner: string;
  checkpoint: PartCheckpoint;
  wait: ProcessingWait;
}

const singleUploadAnswer = z.object({
  value: z.object({
    uploadUrl: z.url(),
    image: z.string().regex(/^urn:li:image:/).optional(),
    document: z.string().regex(/^urn:li:document:/).optional(),
  }),
});

const videoUploadAnswer = z.object({
  value: z.object({
    video: z.string().regex(/^urn:li:video:/),
    uploadToken: z.string(),
    uploadInstructions: z.array(z.object({
      uploadUrl: z.url(),
      firstByte: z.number().int().min(0),
      lastByte: z.number().int().min(0),
    })).min(1),
  }),
});

const mediaStatus = z.object({
  status: z.enum(['WAITING_UPLOAD', 'PROCESSING', 'AVAILABLE', 'PROCESSING_FAILED']),
});

type MediaStatus = z.infer<typeof mediaStatus>['status'];
type Collection = 'images' | 'videos' | 'documents';

function unreadable(context: UploadContext, what: string): PlatformError {
  return unreadableAnswer(context.api.provider, `LinkedIn answered ${what} in a shape`);
}

async function statusOf(context: UploadContext, collection: Collection, urn: string): Promise<MediaStatus> {
  const answer = mediaStatus.safeParse(await context.api.rest(context.accessToken, {
    method: 'GET', path: `/rest/${collection}/${encodeURIComponent(urn)}`,
  }));
  if (!answer.success) throw unreadable(context, `the status of ${urn}`);
  return answer.data.status;
}

/**
 * Whether an upload an earlier attempt started (its URN saved when initialize answered) holds its
 * bytes already, so the retry uses it instead of uploading again. A token that may not read the
 * media's status (member tokens sometimes may not) leaves that unknown: the file is uploaded
 * again under a new URN, which publishes nothing, and the old URN stays unused.
 */
async function earlierUpload(context: UploadContext, collection: Collection, key: string): Promise<string | null> {
  const urn = context.checkpoint.values[key];
  if (urn === undefined) return null;
  if (context.checkpoint.values[`${key}Uploaded`] === 'yes') return urn;
  let status: MediaStatus;
  try {
    status = await statusOf(context, collection, urn);
  } catch (error) {
    if (error instanceof PlatformError && isAccessDenied(error.httpStatus, error.body)) return null;
    throw error;
  }
  if (status !== 'PROCESSING' && status !== 'AVAILABLE') return null;
  await context.checkpoint.save({ [`${key}Uploaded`]: 'yes' });
  return urn;
}

async function mediaBody(media: PublishMedia): Promise<UploadBody> {
  return { data: await media.open(), length: media.size, contentType: 'application/octet-stream' };
}

/**
 * An image or a document: initializeUpload names the URN and one upload URL, the whole file goes in
 * one PUT. The URN is saved before the PUT; `<key>Uploaded` once LinkedIn took the bytes.
 */
async function singleUpload(
  context: UploadContext,
  collection: 'images' | 'documents',
  key: string,
  body: () => Promise<UploadBody>,
): Promise<string> {
  const earlier = await earlierUpload(context, collection, key);
  if (earlier !== null) return earlier;
  const answer = singleUploadAnswer.safeParse(await context.api.rest(context.accessToken, {
    method: 'POST',
    path: `/rest/${collection}?action=initializeUpload`,
    json: { initializeUploadRequest: { owner: context.owner } },
  }));
  const urn = collection === 'images' ? answer.data?.value.image : answer.data?.value.document;
  if (!answer.success || urn === undefined) throw unreadable(context, `the ${collection} upload`);
  await context.checkpoint.save({ [key]: urn });
  await context.api.upload(answer.data.value.uploadUrl, await body(), context.accessToken);
  await context.checkpoint.save({ [`${key}Uploaded`]: 'yes' });
  return urn;
}

export function uploadImage(context: UploadContext, media: PublishMedia, index: number): Promise<string> {
  return singleUpload(context, 'images', `image${String(index)}`, () => mediaBody(media));
}

export function uploadDocument(context: UploadContext, pdf: Buffer): Promise<string> {
  const body = { data: pdf, length: pdf.length, contentType: 'application/octet-stream' };
  return singleUpload(context, 'documents', 'document', () => Promise.resolve(body));
}

/** The file cut into the byte ranges LinkedIn asked for, read once from storage. */
async function* byteRanges(
  file: Readable,
  ranges: { firstByte: number; lastByte: number }[],
  provider: string,
): AsyncGenerator<Buffer> {
  let held = Buffer.alloc(0);
  let index = 0;
  for await (const chunk of file) {
    held = Buffer.concat([held, chunk as Buffer]);
    let range = ranges[index];
    while (range !== undefined && held.length >= range.lastByte - range.firstByte + 1) {
      const length = range.lastByte - range.firstByte + 1;
      yield held.subarray(0, length);
      held = held.subarray(length);
      index += 1;
      range = ranges[index];
    }
  }
  if (index < ranges.length || held.length > 0) {
    const message = 'the video in storage is not the size it was stored with';
    throw new PlatformError({ kind: 'permanent', provider, message });
  }
}

type Instruction = z.infer<typeof videoUploadAnswer>['value']['uploadInstructions'][number];

/** The instructions must cover the file from its first byte to its last, in order, without gaps. */
function coversFile(instructions: Instruction[], size: number): boolean {
  let next = 0;
  for (const instruction of instructions) {
    if (instruction.firstByte !== next || instruction.lastByte < instruction.firstByte) return false;
    next = instruction.lastByte + 1;
  }
  return next === size;
}

async function waitUntilAvailable(context: UploadContext, urn: string): Promise<void> {
  const deadline = Date.now() + context.wait.pollTimeoutMs;
  for (;;) {
    const status = await statusOf(context, 'videos', urn);
    if (status === 'AVAILABLE') return;
    if (status === 'PROCESSING_FAILED') {
      const message = 'LinkedIn could not process the video (PROCESSING_FAILED); '
        + 'try another encoding (MP4, H.264, AAC)';
      throw new PlatformError({ kind: 'permanent', provider: context.api.provider, message });
    }
    if (Date.now() >= deadline) {
      // The upload is finished and checkpointed: the retry only waits again.
      const message = `LinkedIn is still processing the video (${status})`;
      throw new PlatformError({ kind: 'retryable', provider: context.api.provider, message });
    }
    await sleep(context.wait.pollIntervalMs);
  }
}

/**
 * A video: initializeUpload with the size gives the URN and one upload URL per byte range; each
 * range is PUT to its own URL and its ETag kept; finalizeUpload lists the ETags in order; the post
 * waits until the video is AVAILABLE, which LinkedIn requires. The URN is saved as soon as
 * initialize answers, `<key>Uploaded` once finalize did.
 */
export async function uploadVideo(context: UploadContext, media: PublishMedia, index: number): Promise<string> {
  const key = `video${String(index)}`;
  const earlier = await earlierUpload(context, 'videos', key);
  if (earlier !== null) {
    await waitUntilAvailable(context, earlier);
    return earlier;
  }
  const answer = videoUploadAnswer.safeParse(await context.api.rest(context.accessToken, {
    method: 'POST',
    path: '/rest/videos?action=initializeUpload',
    json: {
      initializeUploadRequest: {
        owner: context.owner, fileSizeBytes: media.size, uploadCaptions: false, uploadThumbnail: false,
      },
    },
  }));
  if (!answer.success) throw unreadable(context, 'the video upload');
  const { video, uploadToken } = answer.data.value;
  await context.checkpoint.save({ [key]: video });
  const instructions = [...answer.data.value.uploadInstructions].sort((a, b) => a.firstByte - b.firstByte);
  if (!coversFile(instructions, media.size)) {
    throw unreadable(context, 'upload instructions that do not cover the file');
  }
  const etags: string[] = [];
  const file = await media.open();
  try {
    let part = 0;
    for await (const bytes of byteRanges(file, instructions, context.api.provider)) {
      const instruction = instructions[part];
      if (instruction === undefined) break;
      const body = { data: bytes, length: bytes.length, contentType: 'application/octet-stream' };
      const etag = await context.api.upload(instruction.uploadUrl, body, null);
      if (etag === null) throw unreadable(context, 'a video part without an ETag');
      etags.push(etag);
      part += 1;
    }
  } finally {
    file.destroy();
  }
  await context.api.rest(context.accessToken, {
    method: 'POST',
    path: '/rest/videos?action=finalizeUpload',
    json: { finalizeUploadRequest: { video, uploadToken, uploadedPartIds: etags } },
  });
  await context.checkpoint.save({ [`${key}Uploaded`]: 'yes' });
  await waitUntilAvailable(context, video);
  return video;
}
