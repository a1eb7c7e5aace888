import type { MediaView } from '../media/media-view.ts';
import type { PostRemovalView } from '../removal/removal-view.ts';

/**
 * The events an endpoint can subscribe to. Names are persisted in endpoints and deliveries and
 * read by receivers: renaming one breaks both.
 */
export const webhookEventTypes = [
  'post.published',
  'post.failed',
  'channel.disconnected',
  'media.ready',
  'media.failed',
  /** A video made by POST /generate-video is ready (sent besides its media.ready). */
  'video.ready',
  'post.created',
  'post.updated',
  'post.deleted',
  /** A publish attempt failed and SPS will try again (post.failed is sent when it stops trying). */
  'post.retrying',
  'channel.refreshed',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (webhookEventTypes as readonly string[]).includes(value);
}

/** What the dashboard and the API reference say about each event. */
export const webhookEventDescriptions: Record<WebhookEventType, string> = {
  'post.published': 'every part of a post was published on its channel',
  'post.failed': 'a post could not be published and SPS stopped trying',
  'channel.disconnected': 'a channel\'s platform no longer accepts its authorization: reconnect it',
  'media.ready': 'an upload or an import by URL was stored and inspected',
  'media.failed': 'an upload or an import by URL could not be fetched or read',
  'video.ready': 'a video made by POST /generate-video is ready',
  'post.created': 'a post was created on a channel (one event per channel post of POST /posts)',
  'post.updated': 'a post was edited, turned into a draft or scheduled again',
  'post.deleted': 'a post was deleted (DELETE /posts/:id or its group); with onPlatform=true, told once its '
    + 'parts were taken off the platform, with what became of each',
  'post.retrying': 'a publish attempt failed and SPS will try again; the category says why',
  'channel.refreshed': 'a channel\'s access token was renewed',
};

export interface PostEventData {
  /** The root part's id, as POST /posts answered it. */
  postId: string;
  group: string;
  channelId: string;
  /** The platform identifier, e.g. `mastodon`. */
  provider: string;
}

/** One failed publish attempt of a part, as post.failed lists them (oldest first). */
export interface PublishAttemptData {
  /** The part the attempt was sending (the root's id for a post of one part). */
  partId: string;
  at: string;
  /** The public failure category (shared/domain/publishing/failure-category.ts). */
  category: string;
  message: string;
}

/** A post as created, edited or deleted: where it stands after the change. */
export type PostChangeEventData = PostEventData & {
  state: string;
  publishDate: string;
};

/** The `data` member of each event's body. */
export interface WebhookEventData {
  'post.published': PostEventData & { releaseURL: string; publishedAt: string };
  'post.failed': PostEventData & {
    error: string;
    /** Why SPS stopped: one of the public failure categories. */
    category: string;
    /** The post's last failed attempts, oldest first (at most 10). */
    attempts: PublishAttemptData[];
  };
  'post.created': PostChangeEventData;
  'post.updated': PostChangeEventData;
  /**
   * With `removal` when deleted with onPlatform=true: told once every part is settled, saying what
   * became of each on the platform (shared/domain/removal/).
   */
  'post.deleted': PostChangeEventData & { deletedAt: string; removal?: PostRemovalView };
  'post.retrying': PostEventData & {
    error: string;
    category: string;
    /** When the next attempt is due, when SPS knows it (a platform's rate-limit reset); else null. */
    nextAttemptAt: string | null;
  };
  'channel.refreshed': {
    channelId: string; provider: string; name: string; refreshedAt: string; expiresAt: string | null;
  };
  'channel.disconnected': { channelId: string; provider: string; name: string; reason: string };
  'media.ready': MediaView;
  'media.failed': MediaView;
  'video.ready': MediaView;
}

/** The JSON body every delivery of an event carries, byte for byte the same on each attempt and resend. */
export interface WebhookEventBody<T extends WebhookEventType = WebhookEventType> {
  id: string;
  type: T;
  createdAt: string;
  organizationId: string;
  data: WebhookEventData[T];
}
