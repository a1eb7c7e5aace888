import { jsonBody, type SimulatedAnswer } from '../kit/simulator-server.ts';
import { invalidRequest, sniffMediaType } from './x-problems.ts';
import { multipartParts } from '../kit/multipart-form.ts';
import type { RawRequest } from './x-multipart.ts';

/**
 * X's v2 media upload as the simulator keeps it (oauth-majors.md, section 1.3): the one-request
 * image upload (`POST /2/media/upload`, multipart) and the chunked flow (`initialize`, `append`
 * per segment, `finalize`, then `GET /2/media/upload?command=STATUS` while X processes GIFs and
 * videos). Steps out of order, segments that do not add up to `total_bytes`, and bytes that are
 * not the declared type are refused as X refuses them.
 */

export type MediaCategory = 'tweet_image' | 'tweet_gif' | 'tweet_video';

const megabytes = 1024 * 1024;
const categoryLimits: Record<MediaCategory, { bytes: number; types: readonly string[] }> = {
  tweet_image: { bytes: 5 * megabytes, types: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] },
  tweet_gif: { bytes: 15 * megabytes, types: ['image/gif'] },
  tweet_video: { bytes: 512 * megabytes, types: ['video/mp4', 'video/quicktime'] },
};
/** X's own limit on one appended segment. */
const maxSegmentBytes = 5 * megabytes;
const maxSegmentIndex = 999;

export interface SimulatedMedia {
  id: string;
  mediaKey: string;
  owner: string;
  category: MediaCategory;
  mediaType: string;
  totalBytes: number;
  segments: Map<number, Buffer>;
  /** The whole file once finalized (or uploaded in one request). */
  bytes: Buffer | null;
  state: 'uploading' | 'pending' | 'in_progress' | 'succeeded' | 'failed';
  statusPolls: number;
  /** When X last told the client when to come back, and after how many seconds. */
  answeredAt: number;
  checkAfterSecs: number;
  failReason: string | null;
  expiresAt: number;
}

/** How X processes GIFs and videos in the simulator: tests keep it short. */
export interface MediaProcessing {
  checkAfterSecs: number;
  /** STATUS answers that still say in_progress before X says succeeded. */
  pollsUntilDone: number;
  lifetimeSecs: number;
}

let nextMediaId = 1880000000000000000n;

export class XMediaStore {
  readonly items: SimulatedMedia[] = [];
  processing: MediaProcessing = { checkAfterSecs: 1, pollsUntilDone: 1, lifetimeSecs: 86_400 };
  /** STATUS polls that came before the `check_after_secs` X had asked for: a client that does not wait. */
  earlyPolls = 0;
  /** Processing of the next finalized GIF or video fails with this reason. */
  failNextProcessing: string | null = null;

  find(id: string, owner: string): SimulatedMedia | undefined {
    return this.items.find((item) => item.id === id && item.owner === owner && item.expiresAt > Date.now());
  }

  #create(owner: string, category: MediaCategory, mediaType: string, totalBytes: number): SimulatedMedia {
    nextMediaId += 1n;
    const id = nextMediaId.toString();
    const media: SimulatedMedia = {
      id,
      mediaKey: `${category === 'tweet_video' ? '7' : category === 'tweet_gif' ? '16' : '3'}_${id}`,
      owner,
      category,
      mediaType,
      totalBytes,
      segments: new Map(),
      bytes: null,
      state: 'uploading',
      statusPolls: 0,
      answeredAt: Date.now(),
      checkAfterSecs: this.processing.checkAfterSecs,
      failReason: null,
      expiresAt: Date.now() + this.processing.lifetimeSecs * 1000,
    };
    this.items.push(media);
    return media;
  }

  #lifetime(media: SimulatedMedia): number {
    return Math.max(0, Math.round((media.expiresAt - Date.now()) / 1000));
  }

  #processingInfo(media: SimulatedMedia): Record<string, unknown> | undefined {
    if (media.category === 'tweet_image') return undefined;
    if (media.state === 'succeeded') return { state: 'succeeded', progress_percent: 100 };
    // X's description closes processing_info to these three fields (additionalProperties: false):
    // a failure says `failed` and nothing of why.
    if (media.state === 'failed') return { state: 'failed', progress_percent: 100 };
    media.answeredAt = Date.now();
    const done = media.statusPolls / (this.processing.pollsUntilDone + 1);
    const progress = media.state === 'pending' ? 0 : Math.round(100 * done);
    return { state: media.state, check_after_secs: media.checkAfterSecs, progress_percent: progress };
  }

  /** POST /2/media/upload: an image in one multipart request. */
  simpleUpload(request: RawRequest, owner: string): SimulatedAnswer {
    const parts = multipartParts(request);
    if (parts === null) return invalidRequest('The request body must be multipart/form-data or JSON.');
    const file = parts.find((part) => part.name === 'media');
    if (file === undefined) return invalidRequest('media is required', 'media');
    const category = parts.find((part) => part.name === 'media_category')?.data.toString('utf8') ?? 'tweet_image';
    if (category !== 'tweet_image') {
      return invalidRequest(`media_category ${category} needs the chunked upload`, 'media_category', category);
    }
    const type = sniffMediaType(file.data);
    if (type === null || !categoryLimits.tweet_image.types.includes(type)) {
      return invalidRequest('The media is not an image X takes (JPG, PNG, GIF, WEBP).', 'media');
    }
    if (file.data.length > categoryLimits.tweet_image.bytes) {
      return invalidRequest('Images must be at most 5242880 bytes.', 'media', file.data.length);
    }
    const media = this.#create(owner, 'tweet_image', type, file.data.length);
    media.bytes = file.data;
    media.state = 'succeeded';
    const data = {
      id: media.id, media_key: media.mediaKey, size: media.totalBytes, expires_after_secs: this.#lifetime(media),
    };
    return { status: 200, body: { data } };
  }

  /** POST /2/media/upload/initialize: `{media_type, total_bytes, media_category}`. */
  initialize(request: RawRequest, owner: string): SimulatedAnswer {
    const body = jsonBody(request);
    if (typeof body !== 'object' || body === null) return invalidRequest('The request body must be JSON.');
    const fields = body as Record<string, unknown>;
    const { media_type: mediaType, total_bytes: totalBytes, media_category: category } = fields;
    if (typeof category !== 'string' || !(category in categoryLimits)) {
      return invalidRequest('media_category must be tweet_image, tweet_gif or tweet_video', 'media_category', category);
    }
    const limits = categoryLimits[category as MediaCategory];
    if (typeof mediaType !== 'string' || !limits.types.includes(mediaType)) {
      return invalidRequest(`media_type ${String(mediaType)} is not allowed for ${category}`, 'media_type', mediaType);
    }
    if (typeof totalBytes !== 'number' || !Number.isInteger(totalBytes) || totalBytes <= 0) {
      return invalidRequest('total_bytes must be a positive integer', 'total_bytes', totalBytes);
    }
    if (totalBytes > limits.bytes) {
      const message = `total_bytes is over the ${String(limits.bytes)} bytes of ${category}`;
      return invalidRequest(message, 'total_bytes', totalBytes);
    }
    const media = this.#create(owner, category as MediaCategory, mediaType, totalBytes);
    const data = { id: media.id, media_key: media.mediaKey, expires_after_secs: this.#lifetime(media) };
    return { status: 200, body: { data } };
  }

  /** POST /2/media/upload/:id/append: multipart `media` (≤ 5 MB) and `segment_index` 0-999. */
  append(request: RawRequest, owner: string, id: string): SimulatedAnswer {
    const media = this.find(id, owner);
    if (media === undefined) return invalidRequest('media_id is not a media of this user or has expired', 'id', id);
    if (media.state !== 'uploading') return invalidRequest('The media was already finalized', 'id', id);
    const parts = multipartParts(request);
    if (parts === null) return invalidRequest('The request body must be multipart/form-data.');
    const file = parts.find((part) => part.name === 'media');
    const index = Number(parts.find((part) => part.name === 'segment_index')?.data.toString('utf8'));
    if (file === undefined) return invalidRequest('media is required', 'media');
    if (!Number.isInteger(index) || index < 0 || index > maxSegmentIndex) {
      return invalidRequest('segment_index must be an integer from 0 to 999', 'segment_index', index);
    }
    if (file.data.length > maxSegmentBytes) return invalidRequest('A segment must be at most 5 MB', 'media');
    media.segments.set(index, file.data);
    return { status: 200, body: { data: { expires_at: Math.floor(media.expiresAt / 1000) } } };
  }

  /** POST /2/media/upload/:id/finalize: the segments 0..n-1 must add up to total_bytes. */
  finalize(owner: string, id: string): SimulatedAnswer {
    const media = this.find(id, owner);
    if (media === undefined) return invalidRequest('media_id is not a media of this user or has expired', 'id', id);
    if (media.state !== 'uploading') return invalidRequest('The media was already finalized', 'id', id);
    const indexes = [...media.segments.keys()].sort((a, b) => a - b);
    if (indexes.length === 0 || indexes.some((value, position) => value !== position)) {
      return invalidRequest('Segments are missing: append segment_index 0 to n-1 before finalizing', 'id', id);
    }
    const bytes = Buffer.concat(indexes.map((index) => media.segments.get(index) ?? Buffer.alloc(0)));
    if (bytes.length !== media.totalBytes) {
      return invalidRequest('Segments do not add up to provided total file size.', 'id', id);
    }
    if (sniffMediaType(bytes) !== media.mediaType) {
      return invalidRequest(`The bytes are not ${media.mediaType}`, 'id', id);
    }
    media.bytes = bytes;
    if (media.category === 'tweet_image') media.state = 'succeeded';
    else {
      media.state = 'pending';
      media.failReason = this.failNextProcessing;
      this.failNextProcessing = null;
    }
    const processing = this.#processingInfo(media);
    const data = {
      id: media.id, media_key: media.mediaKey, size: media.totalBytes, expires_after_secs: this.#lifetime(media),
      ...(processing === undefined ? {} : { processing_info: processing }),
    };
    return { status: 200, body: { data } };
  }

  /** GET /2/media/upload?command=STATUS&media_id=: processing moves on with each poll. */
  status(request: RawRequest, owner: string): SimulatedAnswer {
    if (request.query.get('command') !== 'STATUS') return invalidRequest('command must be STATUS', 'command');
    const id = request.query.get('media_id') ?? '';
    const media = this.find(id, owner);
    if (media === undefined) {
      return invalidRequest('media_id is not a media of this user or has expired', 'media_id', id);
    }
    if (media.state === 'uploading') return invalidRequest('The media has not been finalized', 'media_id', id);
    if (media.state === 'pending' || media.state === 'in_progress') {
      if (Date.now() - media.answeredAt < media.checkAfterSecs * 1000 - 50) this.earlyPolls += 1;
      media.statusPolls += 1;
      media.state = 'in_progress';
      if (media.statusPolls > this.processing.pollsUntilDone) {
        media.state = media.failReason === null ? 'succeeded' : 'failed';
      }
    }
    const processing = this.#processingInfo(media);
    const info = processing === undefined ? {} : { processing_info: processing };
    const data = { id: media.id, media_key: media.mediaKey, ...info };
    return { status: 200, body: { data } };
  }
}
