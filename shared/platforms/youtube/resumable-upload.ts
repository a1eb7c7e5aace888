import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, unreadable, type YoutubeApi } from './youtube-api.ts';
import { segments } from '../kit/byte-segments.ts';

/**
 * One video uploaded once with YouTube's resumable protocol (../shared/platforms/oauth-majors.md,
 * 7.2-7.3): `POST /upload/youtube/v3/videos?uploadType=resumable` with the video's metadata opens
 * an upload session whose address comes back in `Location`; the file then goes to that address in
 * chunks (`Content-Range: bytes a-b/total`), each answered 308 with the `Range` taken so far, the
 * last answered with the created video.
 *
 * The video exists only once its last byte is in, and the session remembers how much it took, so
 * the session address is the upload's handle: it is checkpointed before the first byte is sent.
 * A later attempt asks the session its state (an empty PUT whose Content-Range names only the
 * total): 308 → continue from the first byte it lacks, skipping what YouTube holds; 200/201 → the
 * upload finished and its answer was lost: the video is taken from this answer, never uploaded
 * again; 404/410 → the session expired before the upload finished (no video exists), so a new
 * one is opened. The video id is checkpointed as soon as it is known, so a retry for a later step
 * (thumbnail, playlist) does not upload again.
 */

/** How uploads are cut; tests make chunks small. */
export interface UploadTuning {
  /** Bytes per PUT, a multiple of 256 KiB as YouTube requires of every chunk but the last. */
  chunkBytes: number;
}

export const chunkUnit = 256 * 1024;
export const defaultUploadTuning: UploadTuning = { chunkBytes: 32 * chunkUnit };

/** The least throughput a chunk is given time for: 256 KiB a second. */
const slowestBytesPerSecond = chunkUnit;
/** Sends that end without the video (YouTube took less than was sent), before the attempt leaves it to the next. */
const maxRounds = 4;

/** The video resource, as far as SPS reads it back. */
const videoAnswer = z.object({
  id: z.string().min(1),
  status: z.object({ uploadStatus: z.string().optional() }).loose().optional(),
}).loose();

const rangeHeader = /^bytes=0-(\d+)$/;

export interface VideoUpload {
  video: PublishMedia;
  /** The video resource sent with the session: `{snippet, status}`. */
  metadata: unknown;
  /** Query parameters of videos.insert beyond `uploadType` and `part` (notifySubscribers). */
  query: Record<string, string>;
}

/** Where a session stands, as its status answer says. */
type SessionState = { kind: 'complete'; videoId: string } | { kind: 'partial'; offset: number } | { kind: 'gone' };

/** The file a session was opened for: a session is never resumed with other bytes. */
const fileOf = (video: PublishMedia): string => `${video.fileName}:${String(video.size)}:${video.mimeType}`;

function videoIdOf(body: unknown): string {
  const parsed = videoAnswer.safeParse(body);
  if (!parsed.success) throw unreadable('the uploaded video without an id', parsed.error);
  return parsed.data.id;
}

/** The offset a 308 names: one past the last byte YouTube holds (none without a Range header). */
function offsetOf(range: string | null | undefined): number {
  if (range === null || range === undefined) return 0;
  const match = rangeHeader.exec(range.trim());
  if (match?.[1] === undefined) throw unreadable(`a Range "${range}"`);
  return Number(match[1]) + 1;
}

const answer = z.object({
  status: z.number(),
  body: z.unknown(),
  headers: z.record(z.string(), z.string().nullable()),
});

export class ResumableUpload {
  readonly #api: YoutubeApi;
  readonly #checkpoint: PartCheckpoint;
  readonly #tuning: UploadTuning;

  constructor(api: YoutubeApi, checkpoint: PartCheckpoint, tuning: UploadTuning) {
    this.#api = api;
    this.#checkpoint = checkpoint;
    this.#tuning = tuning;
  }

  /** The video's id on YouTube, uploading what earlier attempts did not. */
  async videoId(upload: VideoUpload): Promise<string> {
    const saved = this.#checkpoint.values.videoId;
    if (saved !== undefined && saved !== '') return saved;

    const session = this.#savedSession(upload.video);
    if (session !== null) {
      const state = await this.#state(session, upload.video.size);
      if (state.kind === 'complete') return this.#done(state.videoId);
      if (state.kind === 'partial') return this.#send(upload, session, state.offset);
    }
    return this.#send(upload, await this.#open(upload), 0);
  }

  #savedSession(video: PublishMedia): string | null {
    const { uploadSession, uploadFile } = this.#checkpoint.values;
    if (uploadSession === undefined || uploadSession === '' || uploadFile !== fileOf(video)) return null;
    return uploadSession;
  }

  async #done(videoId: string): Promise<string> {
    await this.#checkpoint.save({ videoId });
    return videoId;
  }

  /** Opens a session and checkpoints its address before any byte goes to it. */
  async #open(upload: VideoUpload): Promise<string> {
    const { video } = upload;
    const opened = answer.safeParse(await this.#api.request({
      method: 'POST',
      url: this.#api.endpoint('/upload/youtube/v3/videos', {
        uploadType: 'resumable', part: 'snippet,status', ...upload.query,
      }),
      headers: { 'X-Upload-Content-Length': String(video.size), 'X-Upload-Content-Type': video.mimeType },
      json: upload.metadata,
      withStatus: true,
      readHeaders: ['location'],
    }));
    const location = opened.success ? opened.data.headers.location ?? null : null;
    if (location === null || !URL.canParse(location)) throw unreadable('an upload session without its address');
    await this.#checkpoint.save({ uploadSession: location, uploadFile: fileOf(video) });
    return location;
  }

  /** Asks the session how far it got (an empty PUT naming the total only). */
  async #state(session: string, size: number): Promise<SessionState> {
    let raw: unknown;
    try {
      raw = await this.#api.request({
        method: 'PUT',
        url: session,
        headers: { 'Content-Range': `bytes */${String(size)}` },
        bytes: { data: Buffer.alloc(0), contentType: 'application/octet-stream' },
        withStatus: true,
        readHeaders: ['range'],
        answerStatuses: [308],
      });
    } catch (error) {
      if (isGone(error)) return { kind: 'gone' };
      throw error;
    }
    const status = answer.safeParse(raw);
    if (!status.success) throw unreadable('a session status', status.error);
    if (status.data.status === 308) return { kind: 'partial', offset: offsetOf(status.data.headers.range) };
    return { kind: 'complete', videoId: videoIdOf(status.data.body) };
  }

  /**
   * PUTs the file from `offset` in chunks until YouTube answers with the video. When a 308 says
   * YouTube holds less than was sent, the file is read again from there; a session that expires
   * meanwhile (no video exists then) is replaced once in this attempt.
   */
  async #send(upload: VideoUpload, session: string, offset: number): Promise<string> {
    const { size } = upload.video;
    let current = session;
    let from = offset;
    let reopened = false;
    for (let round = 0; round < maxRounds; round += 1) {
      let state = await this.#sendChunks(upload.video, current, from).catch((error: unknown): SessionState => {
        if (isGone(error)) return { kind: 'gone' };
        throw error;
      });
      // Every byte is in and yet no video came back: the session's status says which.
      if (state.kind === 'partial' && state.offset >= size) state = await this.#state(current, size);
      if (state.kind === 'complete') return this.#done(state.videoId);
      if (state.kind === 'partial') {
        from = state.offset;
        continue;
      }
      if (reopened) break;
      reopened = true;
      current = await this.#open(upload);
      from = 0;
    }
    const message = `YouTube took the upload only up to byte ${String(from)}; the next attempt resumes from there`;
    throw new PlatformError({ kind: 'retryable', provider, message });
  }

  /** The video once the last chunk is in, or the offset to go on from when YouTube took less. */
  async #sendChunks(video: PublishMedia, session: string, offset: number): Promise<SessionState> {
    const stream = await video.open();
    try {
      let position = offset;
      for await (const chunk of segments(stream, this.#tuning.chunkBytes, offset)) {
        const last = position + chunk.length - 1;
        const sent = answer.safeParse(await this.#api.request({
          method: 'PUT',
          url: session,
          headers: { 'Content-Range': `bytes ${String(position)}-${String(last)}/${String(video.size)}` },
          bytes: { data: chunk, contentType: video.mimeType },
          withStatus: true,
          readHeaders: ['range'],
          answerStatuses: [308],
          timeoutMs: this.#api.timeoutMs + Math.ceil((chunk.length / slowestBytesPerSecond) * 1000),
        }));
        if (!sent.success) throw unreadable('a chunk of the upload', sent.error);
        if (sent.data.status !== 308) return { kind: 'complete', videoId: videoIdOf(sent.data.body) };
        const taken = offsetOf(sent.data.headers.range);
        if (taken !== last + 1) return { kind: 'partial', offset: taken };
        position = taken;
      }
      return { kind: 'partial', offset: position };
    } finally {
      stream.destroy();
    }
  }
}

/** 404 or 410 from a session address: YouTube no longer has the session. */
function isGone(error: unknown): boolean {
  return error instanceof PlatformError && (error.httpStatus === 404 || error.httpStatus === 410);
}
