import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { segments } from '../kit/byte-segments.ts';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { provider, type XApi } from './x-api.ts';

/**
 * Media for one post part, uploaded the way X's v2 media API takes them
 * (../shared/platforms/oauth-majors.md, section 1.3): still images in one multipart
 * `POST /2/media/upload`; GIFs and videos in chunks (`initialize` → `append` per segment →
 * `finalize`), then `GET /2/media/upload?command=STATUS` until X has processed them, waiting the
 * `check_after_secs` X asks for between polls.
 *
 * Each media id is saved in the part's checkpoint the moment X returns it, with its expiry and
 * how far the upload got, so a retried part reuses it instead of uploading again: a ready id as
 * it is; a finalized one by polling its processing; one whose finalize answer never came by
 * asking STATUS whether X finalized it (a media X never finalized is uploaded afresh, since its
 * segments cannot be known to be complete).
 */

/** How uploads are cut and how long processing may take; tests make chunks small. */
export interface UploadTuning {
  /** Bytes per `append` segment: X takes up to 5 MB per segment. */
  chunkBytes: number;
  /** How long one attempt waits for X to process a video before leaving it to the next attempt. */
  maxProcessingMs: number;
}

export const defaultUploadTuning: UploadTuning = { chunkBytes: 4 * 1024 * 1024, maxProcessingMs: 10 * 60_000 };

/** A saved id is reused only while X keeps it this much longer, so it cannot expire before the post. */
const reuseMarginMs = 5 * 60_000;
/** Where X leaves out `expires_after_secs`, assume no more than this rather than a day. */
const assumedLifetimeSecs = 3600;

/** X's description closes processing_info to these fields: a failed state carries no reason. */
const processingInfo = z.object({
  state: z.enum(['pending', 'in_progress', 'succeeded', 'failed']),
  check_after_secs: z.number().nonnegative().optional(),
  progress_percent: z.number().optional(),
});

const mediaAnswer = z.object({
  data: z.object({
    id: z.string().regex(/^\d+$/),
    expires_after_secs: z.number().positive().optional(),
    processing_info: processingInfo.optional(),
  }),
});

type ProcessingInfo = z.infer<typeof processingInfo>;

/** What STATUS says of a media whose finalize answer was lost. */
type FinalizedStatus = { finalized: false } | { finalized: true; info: ProcessingInfo | null };

/** How far one media's upload got, as the checkpoint keeps it. */
type UploadStep = 'initialized' | 'finalized' | 'ready';

const savedMedia = z.object({
  id: z.string().regex(/^\d+$/),
  expiresAt: z.coerce.number().int(),
  step: z.enum(['initialized', 'finalized', 'ready']),
  /** The file it was made from: a post edited between attempts must not reuse another file's id. */
  file: z.string(),
});

type SavedMedia = z.infer<typeof savedMedia>;

function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `X answered ${what}`);
}

/** GIFs and videos go through the chunked upload with the category X processes them under. */
export function mediaCategory(media: PublishMedia): 'tweet_image' | 'tweet_gif' | 'tweet_video' {
  if (media.kind === 'video') return 'tweet_video';
  return media.mimeType === 'image/gif' ? 'tweet_gif' : 'tweet_image';
}

const fileOf = (media: PublishMedia): string => `${media.fileName}:${String(media.size)}`;

export class PartMediaUploader {
  readonly #api: XApi;
  readonly #checkpoint: PartCheckpoint;
  readonly #tuning: UploadTuning;

  constructor(api: XApi, checkpoint: PartCheckpoint, tuning: UploadTuning) {
    this.#api = api;
    this.#checkpoint = checkpoint;
    this.#tuning = tuning;
  }

  /** X's media ids for the part's files, in order, each uploaded at most once across attempts. */
  async upload(media: PublishMedia[]): Promise<string[]> {
    const ids: string[] = [];
    // One at a time: each id is checkpointed before the next upload starts.
    for (const [index, item] of media.entries()) ids.push(await this.#one(index, item));
    return ids;
  }

  #saved(index: number, media: PublishMedia): SavedMedia | null {
    const values = this.#checkpoint.values;
    const prefix = `media${String(index)}`;
    const parsed = savedMedia.safeParse({
      id: values[`${prefix}Id`],
      expiresAt: values[`${prefix}ExpiresAt`],
      step: values[`${prefix}Step`],
      file: values[`${prefix}File`],
    });
    if (!parsed.success || parsed.data.file !== fileOf(media)) return null;
    return parsed.data.expiresAt - Date.now() > reuseMarginMs ? parsed.data : null;
  }

  async #save(index: number, media: PublishMedia, id: string, expiresAt: number, step: UploadStep): Promise<void> {
    const prefix = `media${String(index)}`;
    await this.#checkpoint.save({
      [`${prefix}Id`]: id,
      [`${prefix}ExpiresAt`]: String(expiresAt),
      [`${prefix}Step`]: step,
      [`${prefix}File`]: fileOf(media),
    });
  }

  async #one(index: number, media: PublishMedia): Promise<string> {
    const saved = this.#saved(index, media);
    if (saved !== null) {
      const reused = await this.#resume(index, media, saved);
      if (reused !== null) return reused;
    }
    return mediaCategory(media) === 'tweet_image' ? this.#simple(index, media) : this.#chunked(index, media);
  }

  /** Continues from a checkpointed id; null when X never finalized it and the file must go again. */
  async #resume(index: number, media: PublishMedia, saved: SavedMedia): Promise<string | null> {
    if (saved.step === 'ready') return saved.id;
    // Also for a finalized id: X may have dropped it, and then the file goes again.
    const status = await this.#statusIfFinalized(saved.id);
    if (!status.finalized) return null;
    if (saved.step === 'initialized') await this.#save(index, media, saved.id, saved.expiresAt, 'finalized');
    await this.#processed(saved.id, status.info);
    await this.#save(index, media, saved.id, saved.expiresAt, 'ready');
    return saved.id;
  }

  async #simple(index: number, media: PublishMedia): Promise<string> {
    const answer = mediaAnswer.safeParse(await this.#api({
      method: 'POST',
      path: '/2/media/upload',
      multipart: { fields: { media_category: 'tweet_image' }, fileField: 'media', file: media },
    }));
    if (!answer.success) throw unreadable('an image upload');
    const { id, expires_after_secs: lifetime } = answer.data.data;
    await this.#save(index, media, id, Date.now() + (lifetime ?? assumedLifetimeSecs) * 1000, 'ready');
    return id;
  }

  async #chunked(index: number, media: PublishMedia): Promise<string> {
    const started = mediaAnswer.safeParse(await this.#api({
      method: 'POST',
      path: '/2/media/upload/initialize',
      json: { media_type: media.mimeType, total_bytes: media.size, media_category: mediaCategory(media) },
    }));
    if (!started.success) throw unreadable('a media initialize');
    const { id, expires_after_secs: lifetime } = started.data.data;
    const expiresAt = Date.now() + (lifetime ?? assumedLifetimeSecs) * 1000;
    await this.#save(index, media, id, expiresAt, 'initialized');

    let segmentIndex = 0;
    for await (const segment of segments(await media.open(), this.#tuning.chunkBytes)) {
      const open = (): Promise<Readable> => Promise.resolve(Readable.from([segment]));
      const chunk: PublishMedia = { ...media, size: segment.length, open };
      await this.#api({
        method: 'POST',
        path: `/2/media/upload/${id}/append`,
        multipart: { fields: { segment_index: String(segmentIndex) }, fileField: 'media', file: chunk },
      });
      segmentIndex += 1;
    }

    const finalize = await this.#api({ method: 'POST', path: `/2/media/upload/${id}/finalize` });
    const finalized = mediaAnswer.safeParse(finalize);
    if (!finalized.success) throw unreadable('a media finalize');
    await this.#save(index, media, id, expiresAt, 'finalized');
    await this.#processed(id, finalized.data.data.processing_info ?? null);
    await this.#save(index, media, id, expiresAt, 'ready');
    return id;
  }

  async #status(id: string): Promise<ProcessingInfo | null> {
    const answer = mediaAnswer.safeParse(await this.#api({
      method: 'GET',
      path: '/2/media/upload',
      query: { command: 'STATUS', media_id: id },
    }));
    if (!answer.success) throw unreadable('a media status');
    return answer.data.data.processing_info ?? null;
  }

  /**
   * STATUS of a checkpointed media not known to be ready. X refuses STATUS (4xx) for a media it
   * has not finalized or no longer has: that refusal is the answer "upload it again", so it is
   * not an error here.
   */
  async #statusIfFinalized(id: string): Promise<FinalizedStatus> {
    try {
      return { finalized: true, info: await this.#status(id) };
    } catch (error) {
      if (error instanceof PlatformError && error.kind === 'permanent' && error.httpStatus !== null) {
        return { finalized: false };
      }
      throw error;
    }
  }

  /** Polls until X has processed the media, as often as `check_after_secs` allows. */
  async #processed(id: string, first: ProcessingInfo | null): Promise<void> {
    const giveUpAt = Date.now() + this.#tuning.maxProcessingMs;
    let info = first;
    while (info !== null && info.state !== 'succeeded') {
      if (info.state === 'failed') {
        const message = `X could not process media ${id}; it gives no reason `
          + '(check the file\'s format, size and length)';
        throw new PlatformError({ kind: 'permanent', provider, message });
      }
      const waitMs = (info.check_after_secs ?? 1) * 1000;
      if (Date.now() + waitMs > giveUpAt) {
        // The id stays checkpointed as finalized: the next attempt polls it instead of uploading again.
        const message = `X is still processing media ${id}; publishing continues on the next attempt`;
        throw new PlatformError({ kind: 'retryable', provider, message });
      }
      await sleep(waitMs);
      info = await this.#status(id);
    }
  }
}
