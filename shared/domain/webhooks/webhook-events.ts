import type { MediaView } from '../media/media-view.ts';

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
};

export interface PostEventData {
  /** The root part's id, as POST /posts answered it. */
  postId: string;
  group: string;
  channelId: string;
  /** The platform identifier, e.g. `mastodon`. */
  provider: string;
}

/** The `data` member of each event's body. */
export interface WebhookEventData {
  'post.published': PostEventData & { releaseURL: string; publishedAt: string };
  'post.failed': PostEventData & { error: string };
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
