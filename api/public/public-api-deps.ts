import type { CacheInvalidation } from '../../shared/cache/invalidation-bus.ts';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import type { CredentialLookup } from '../caches/credential-lookup.ts';
import type { Database } from '../../shared/db/database.ts';
import type { PlatformCaller } from '../../shared/domain/channels/platform-calls.ts';
import type { PublishScheduler } from '../../shared/domain/posts/publish-scheduler.ts';
import type { RetryLock } from '../../shared/domain/posts/retry-post.ts';
import type { QueueSlotLock } from '../../shared/domain/posts/queue-slot-lock.ts';
import type { RemovalJobs } from '../../shared/domain/removal/removal-jobs.ts';
import type { RateLimitDelays } from '../../shared/domain/channels/channel-health-reads.ts';
import type { ChannelFinder } from '../../shared/domain/posts/check-channel-posts.ts';
import type { AdapterSet } from '../../shared/platforms/platforms.ts';
import type { AnalyticsGathering } from '../../shared/domain/analytics/analytics-gathering.ts';
import type { IdempotencyStore } from '../middleware/idempotency-store.ts';
import type { MediaReach } from '../../shared/platforms/media-reach.ts';
import type { ConnectionPolicy } from '../../shared/net/connection-policy.ts';
import type { PlatformApps } from '../../shared/platforms/platform-apps.ts';
import type { MediaSizeLimits } from '../../shared/media/media-types.ts';
import type { MediaQueue } from '../../shared/queue/media-queue.ts';
import type { FixedWindowLimiter } from '../middleware/fixed-window-limiter.ts';
import type { Storage } from '../../shared/storage/storage.ts';
import type { VideoQueue } from '../../shared/queue/video-queue.ts';
import type { VideoCatalog } from '../../shared/video/video-catalog.ts';
import type { WebhookDeliveryJobs } from '../../shared/domain/webhooks/delivery-jobs.ts';
import type { WebhookEvents } from '../../shared/domain/webhooks/webhook-outbox.ts';

/** What the public API's routes are built from. */
export interface PublicApiDeps {
  db: Database;
  secrets: SecretBox;
  /** Credential to organization, cached in this process (api/caches/credential-lookup.ts). */
  credentials: CredentialLookup;
  /** Tells every api process that something it may have cached changed. */
  caches: CacheInvalidation;
  /** The channels a post names, cached in this process (api/caches/channel-lookup.ts). */
  findChannels: ChannelFinder;
  scheduler: PublishScheduler;
  /** One POST /posts/:id/retry of a post at a time, across api processes. */
  retryLock: RetryLock;
  /** Held per channel while `queue` posts choose their slots (shared/domain/posts/queue-slot-lock.ts). */
  slotLock: QueueSlotLock;
  /** Which publish jobs wait for a platform's rate-limit reset (channel health). */
  rateLimitDelays: RateLimitDelays;
  platformCaller: PlatformCaller;
  /** Where DELETE /posts/:id?onPlatform=true queues taking a post off its platform. */
  removals: RemovalJobs;
  /** The organization's hourly budget across the public API (PUBLIC_API_RATE_LIMIT). */
  limiter: FixedWindowLimiter;
  /** POST /posts/validate's own hourly budget (PUBLIC_API_VALIDATE_RATE_LIMIT). */
  postValidationLimiter: FixedWindowLimiter;
  /** Answers of requests sent with an Idempotency-Key, for their repeats. */
  idempotency: IdempotencyStore;
  now: () => Date;
  /** Where the dashboard lives (channel connection pages, the OAuth callback). */
  frontendUrl: string;
  /** Each platform's app settings: what connecting and refreshing need. */
  platforms: PlatformApps;
  /** Public address of the backend, ending in /api (status URLs point there). */
  backendUrl: string;
  storage: Storage;
  mediaQueue: Pick<MediaQueue, 'processAndWait'>;
  mediaLimits: MediaSizeLimits;
  /** How long upload routes wait for the media worker before answering 202. */
  mediaWaitMs: number;
  /** Whether a platform that pulls media by URL can reach where `storage` serves them. */
  mediaReach: MediaReach;
  /** Which platforms have analytics reads (the api never calls a platform itself). */
  adapters: AdapterSet;
  /** Asks the analytics workers for a channel's fresh counters. */
  analytics: AnalyticsGathering;
  /** ANALYTICS_FRESH_MS: stored analytics older than this are answered with a refresh requested. */
  freshMs: number;
  /** The deployment's connection policy (ALLOW_PRIVATE_NETWORK): which webhook URLs may be registered. */
  userHosts: ConnectionPolicy;
  /** The video types this server makes and the bounds of a request (VIDEO_*, AI_*). */
  videoCatalog: VideoCatalog;
  videoQueue: Pick<VideoQueue, 'generateAndWait' | 'add'>;
  /** How long POST /generate-video waits for the video worker before answering 202. */
  videoWaitMs: number;
  /** Where a resent delivery's attempt is queued. */
  webhookDeliveries: WebhookDeliveryJobs;
  /** Where the api tells events (post.created, post.updated, post.deleted): webhooks and GET /events. */
  webhooks: WebhookEvents;
}
