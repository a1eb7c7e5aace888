import type { Readable } from 'node:stream';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';

/** What an adapter needs to act for one channel. The token is already decrypted. */
export interface ChannelCredentials {
  channelId: string;
  accessToken: string;
  /** Origin of a federated platform's server; null where the platform has one fixed host. */
  instanceUrl: string | null;
}

/** One attached file, read from storage only when the adapter sends it. */
export interface PublishMedia {
  kind: 'image' | 'video';
  mimeType: string;
  size: number;
  fileName: string;
  alt: string | null;
  /**
   * Where the platform can fetch the file itself (UPLOADS_PUBLIC_URL or the bucket's address),
   * for platforms that pull media by URL (Instagram, Threads) instead of receiving the bytes.
   */
  url: string;
  /**
   * A video's length as the media worker measured it, null when unknown; for platforms that
   * refuse videos longer than the account may post (TikTok's max_video_post_duration_sec).
   */
  durationSeconds?: number | null;
  open(): Promise<Readable>;
  /**
   * A video's poster, for platforms that take a cover image with a video (Reddit's
   * `video_poster_url`, YouTube's thumbnails.set): the library image the post chose for it
   * (`image[].thumbnail`, post-posters.ts: a JPEG or PNG of at most 2 MB), else the JPEG frame
   * the media worker took from it. `chosen` tells them apart: YouTube makes its own frame, so it
   * sets only a chosen one. Absent for images, and for a video without either.
   */
  poster?: { mimeType: string; fileName: string; url: string; chosen: boolean; open(): Promise<Readable> };
}

/**
 * What an adapter keeps about one part between attempts: the handles of steps that cannot be
 * repeated safely (an uploaded media id, a created container), saved before the irreversible
 * step so a retry after a crash continues from them instead of starting over.
 */
export interface PartCheckpoint {
  /** What earlier attempts at this part saved; empty on the first attempt. */
  readonly values: Readonly<Record<string, string>>;
  /** Merges `values` into the part's checkpoint and waits until it is stored. */
  save(values: Record<string, string>): Promise<void>;
}

export interface PublishInput {
  channel: ChannelCredentials;
  content: string;
  media: PublishMedia[];
  settings: Record<string, unknown>;
  /** Derived from the post part, so a retried call cannot publish twice where the platform supports it. */
  idempotencyKey: string;
  /** When the part was due: the same on every attempt, for platforms that sign a timestamp into the post. */
  dueAt?: Date;
  checkpoint: PartCheckpoint;
}

export interface CommentInput extends PublishInput {
  /** Release id of the part this one answers. */
  parentReleaseId: string;
}

/** A published item to take off the platform: the part's release id and its post's settings, as publishing had them. */
export interface RemovalTarget {
  releaseId: string;
  /** Where the settings chose what the item is (WordPress's post type), they say where it lives. */
  settings: Record<string, unknown>;
}

export interface PublishResult {
  releaseId: string;
  releaseURL: string;
  /**
   * What the platform refused of an extra step after it published the item (a video's custom
   * thumbnail), in words for the user. The part stays published: failing it would have the user
   * post again what is already online. Told in the publication's notification and logged.
   */
  warnings?: string[];
}

/** One counter as the platform reports it at the time of reading (followers, likes, impressions...). */
export interface AnalyticsCounter {
  /** What clients show, the same label on every reading: 'Followers', 'Likes'. */
  label: string;
  value: number;
}

/**
 * Reads of the platform's counters, for the analytics worker to store as daily buckets. A platform
 * without a counter leaves it out; one without analytics has no `analytics` at all.
 */
export interface AnalyticsReads {
  account(channel: ChannelCredentials): Promise<AnalyticsCounter[]>;
  post(channel: ChannelCredentials, releaseId: string): Promise<AnalyticsCounter[]>;
}

export type ToolHandler = (channel: ChannelCredentials, data: Record<string, unknown>) => Promise<unknown>;

/** One module per platform, all shaped alike; platform HTTP goes through platformRequest. */
export interface PlatformAdapter {
  readonly provider: string;
  publish(input: PublishInput): Promise<PublishResult>;
  /** A thread reply or a comment under the previous part, as the platform does it. */
  comment(input: CommentInput): Promise<PublishResult>;
  /** The account's latest items, to pick from when a post's release id is `missing`. */
  recentContent(channel: ChannelCredentials): Promise<{ id: string; url: string }[]>;
  /**
   * Takes one published item off the platform (DELETE /posts/:id?onPlatform=true), as the room's
   * `removal` says (delete, unpublish, trash); present exactly when that declares support.
   * Resolves once the platform no longer shows the item, an item already gone included
   * (platform-removal.ts removedEvenIfGone); fails with the PlatformError kinds publishing uses.
   */
  readonly remove?: (channel: ChannelCredentials, item: RemovalTarget) => Promise<void>;
  /** Implementations of the tools the registry lists for this platform, by methodName. */
  readonly tools: Readonly<Record<string, ToolHandler>>;
  readonly analytics?: AnalyticsReads;
}

export interface AdapterOptions {
  timeoutMs: number;
  /**
   * Where servers whose address a user gave (a Mastodon instance...) may be; adapters pass it
   * as `userHost` on every request to such a server (platform-http.ts).
   */
  userHosts: ConnectionPolicy;
}
