import { randomBytes, randomInt } from 'node:crypto';
import type { ChunkPlan } from './chunk-rules.ts';
import type { PrivacyLevel } from './creators.ts';
import { looksLikeVideo, pullFile, type PulledFile } from './pulled-files.ts';

/**
 * Publishes as TikTok keeps them between `init` and the end (oauth-majors.md 8.2, step 4): each
 * has a publish_id and goes PROCESSING_UPLOAD (bytes arriving) or PROCESSING_DOWNLOAD (TikTok
 * pulling the URLs), then, `processingMs` after TikTok has every byte, PUBLISH_COMPLETE (a post
 * exists), SEND_TO_USER_INBOX (the creator finishes it in the app) or FAILED with a fail_reason.
 * A public post's id is exposed only `moderationMs` after it completes; other privacy levels
 * never expose one. A FILE_UPLOAD whose bytes never all arrive stays unfinished and never
 * becomes a post, which is what makes a repeated init after a lost answer safe for videos.
 */
export type PublishStatus =
  | 'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'SEND_TO_USER_INBOX' | 'PUBLISH_COMPLETE' | 'FAILED';
export type PostMode = 'DIRECT_POST' | 'MEDIA_UPLOAD';

export interface SimulatedUpload {
  plan: ChunkPlan;
  uploadId: string;
  token: string;
  chunks: Buffer[];
  received: number;
  contentTypes: string[];
}

export interface SimulatedPost {
  /** int64 digits (over 2^53: a JSON reader that rounds numbers gets another id). */
  id: string;
  openId: string;
  publishId: string;
  media: 'video' | 'photo';
  /** A video's caption or a photo post's title. */
  title: string;
  description: string;
  privacyLevel: PrivacyLevel;
  postInfo: Record<string, unknown>;
  video: Buffer | null;
  photos: Buffer[];
  createdAt: number;
  /** When moderation exposes the id; null for privacy levels that never expose one. */
  publicAt: number | null;
  counters: { views: number; likes: number; comments: number; shares: number };
}

export interface SimulatedPublish {
  publishId: string;
  openId: string;
  media: 'video' | 'photo';
  mode: PostMode;
  source: 'FILE_UPLOAD' | 'PULL_FROM_URL';
  /** post_info as sent; empty for an inbox video, which takes none. */
  postInfo: Record<string, unknown>;
  createdAt: number;
  upload: SimulatedUpload | null;
  /** What the pulls fetched, once all are done; null before, or for an upload. */
  pulled: PulledFile[] | null;
  /** When TikTok had every byte (upload complete or pulls done). */
  mediaAt: number | null;
  failReason: string | null;
  outcome: 'post' | 'inbox' | null;
  post: SimulatedPost | null;
}

export interface PublishRequest {
  openId: string;
  media: 'video' | 'photo';
  mode: PostMode;
  postInfo: Record<string, unknown>;
  upload: ChunkPlan | null;
  /** PULL_FROM_URL: the URLs TikTok fetches. */
  urls: string[];
}

const day = 24 * 3600 * 1000;

function newPostId(): string {
  // TikTok's ids are 19 digits starting with 7: well over Number.MAX_SAFE_INTEGER.
  return `73${String(randomInt(10_000_000, 99_999_999))}${String(randomInt(100_000_000, 999_999_999))}`;
}

export class TikTokPublishing {
  /** How long TikTok processes media once it has every byte. */
  processingMs = 0;
  /** How long moderation of a public post takes before its id is exposed. */
  moderationMs = 0;
  readonly publishes = new Map<string, SimulatedPublish>();
  readonly #failures: string[] = [];
  readonly #pulls = new Set<Promise<void>>();

  /** The next publishes to finish processing end FAILED with these fail_reasons, in order. */
  failNextPublish(...reasons: string[]): void {
    this.#failures.push(...reasons);
  }

  create(request: PublishRequest): SimulatedPublish {
    const prefix = request.media === 'photo' ? 'p' : 'v';
    const kind = request.mode === 'MEDIA_UPLOAD' ? 'inbox' : 'pub';
    const source = request.upload === null ? 'PULL_FROM_URL' : 'FILE_UPLOAD';
    const tag = source === 'FILE_UPLOAD' ? 'file' : 'url';
    const publish: SimulatedPublish = {
      publishId: `${prefix}_${kind}_${tag}~v2-1.${String(randomInt(1e9, 9e9))}${String(randomInt(1e9, 9e9))}`,
      openId: request.openId,
      media: request.media,
      mode: request.mode,
      source,
      postInfo: request.postInfo,
      createdAt: Date.now(),
      upload: request.upload === null ? null : {
        plan: request.upload,
        uploadId: String(randomInt(1e9, 9e9)),
        token: randomBytes(12).toString('hex'),
        chunks: [],
        received: 0,
        contentTypes: [],
      },
      pulled: null,
      mediaAt: null,
      failReason: null,
      outcome: null,
      post: null,
    };
    this.publishes.set(publish.publishId, publish);
    if (source === 'PULL_FROM_URL') this.#pull(publish, request.urls);
    return publish;
  }

  /** TikTok answers the init first and fetches afterwards: the status says PROCESSING_DOWNLOAD meanwhile. */
  #pull(publish: SimulatedPublish, urls: string[]): void {
    const kind = publish.media;
    const pulling = Promise.all(urls.map((url) => pullFile(url, kind))).then((pulled) => {
      publish.pulled = pulled;
      publish.failReason = pulled.find((file) => file.failReason !== null)?.failReason ?? null;
      publish.mediaAt = Date.now();
    });
    this.#pulls.add(pulling);
    void pulling.finally(() => this.#pulls.delete(pulling));
  }

  /** Waits for pulls under way, for tests that look at what TikTok fetched. */
  async pullsDone(): Promise<void> {
    await Promise.all([...this.#pulls]);
  }

  /** Completes what has finished processing by `now`. */
  settle(now = Date.now()): void {
    for (const publish of this.publishes.values()) {
      if (publish.mediaAt === null || publish.outcome !== null || publish.failReason !== null) continue;
      const doneAt = publish.mediaAt + this.processingMs;
      if (now < doneAt) continue;
      const video = publish.upload === null ? null : Buffer.concat(publish.upload.chunks);
      publish.failReason = this.#failures.shift()
        ?? (video !== null && !looksLikeVideo(video) ? 'file_format_check_failed' : null);
      if (publish.failReason !== null) continue;
      if (publish.mode === 'MEDIA_UPLOAD') {
        publish.outcome = 'inbox';
        continue;
      }
      publish.outcome = 'post';
      publish.post = this.#post(publish, doneAt, video);
    }
  }

  #post(publish: SimulatedPublish, createdAt: number, uploaded: Buffer | null): SimulatedPost {
    const info = publish.postInfo;
    const text = (key: string) => (typeof info[key] === 'string' ? info[key] : '');
    const privacyLevel = info.privacy_level as PrivacyLevel;
    const pulled = publish.pulled ?? [];
    return {
      id: newPostId(),
      openId: publish.openId,
      publishId: publish.publishId,
      media: publish.media,
      title: text('title'),
      description: text('description'),
      privacyLevel,
      postInfo: info,
      video: uploaded ?? (publish.media === 'video' ? pulled[0]?.bytes ?? null : null),
      photos: publish.media === 'photo' ? pulled.map((file) => file.bytes ?? Buffer.alloc(0)) : [],
      createdAt,
      publicAt: privacyLevel === 'PUBLIC_TO_EVERYONE' ? createdAt + this.moderationMs : null,
      counters: { views: 0, likes: 0, comments: 0, shares: 0 },
    };
  }

  status(publish: SimulatedPublish, now = Date.now()): Record<string, unknown> {
    this.settle(now);
    const uploaded = publish.upload?.received ?? 0;
    const downloaded = (publish.pulled ?? []).reduce((sum, file) => sum + file.size, 0);
    const base = { uploaded_bytes: uploaded, downloaded_bytes: downloaded };
    if (publish.failReason !== null) return { ...base, status: 'FAILED', fail_reason: publish.failReason };
    if (publish.outcome === 'inbox') return { ...base, status: 'SEND_TO_USER_INBOX' };
    const post = publish.post;
    if (post !== null) {
      const exposed = post.publicAt !== null && now >= post.publicAt;
      return { ...base, status: 'PUBLISH_COMPLETE', publicaly_available_post_id: exposed ? [BigInt(post.id)] : [] };
    }
    return { ...base, status: publish.source === 'FILE_UPLOAD' ? 'PROCESSING_UPLOAD' : 'PROCESSING_DOWNLOAD' };
  }

  /** Every post made, oldest first. */
  posts(): SimulatedPost[] {
    this.settle();
    return [...this.publishes.values()].flatMap((publish) => (publish.post === null ? [] : [publish.post]));
  }

  /** Publishes sent to creators' inboxes. */
  inbox(): SimulatedPublish[] {
    this.settle();
    return [...this.publishes.values()].filter((publish) => publish.outcome === 'inbox');
  }

  /** Publishes of the last 24 hours that count towards the creator's daily cap (not failed ones). */
  postsToday(openId: string, now = Date.now()): number {
    return [...this.publishes.values()]
      .filter((publish) => publish.openId === openId && publish.createdAt > now - day && publish.mediaAt !== null)
      .filter((publish) => publish.failReason === null).length;
  }

  /** Inbox shares of the last 24 hours the creator has not finished (all of them, here). */
  pendingInbox(openId: string, now = Date.now()): number {
    return [...this.publishes.values()].filter((publish) =>
      publish.openId === openId && publish.mode === 'MEDIA_UPLOAD' && publish.createdAt > now - day
      && publish.failReason === null && publish.mediaAt !== null).length;
  }

  byUpload(uploadId: string): SimulatedPublish | undefined {
    return [...this.publishes.values()].find((publish) => publish.upload?.uploadId === uploadId);
  }
}
