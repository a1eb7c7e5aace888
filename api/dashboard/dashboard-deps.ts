import type { RedisConnection } from '../../shared/queue/redis.ts';
import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import type { CacheInvalidation } from '../../shared/cache/invalidation-bus.ts';
import type { Database } from '../../shared/db/database.ts';
import type { MediaReach } from '../../shared/platforms/media-reach.ts';
import type { PlatformApps } from '../../shared/platforms/platform-apps.ts';
import type { PublishScheduler } from '../../shared/domain/posts/publish-scheduler.ts';
import type { RateLimitDelays } from '../../shared/domain/channels/channel-health-reads.ts';
import type { ConnectionPolicy } from '../../shared/net/connection-policy.ts';
import type { WebhookDeliveryJobs } from '../../shared/domain/webhooks/delivery-jobs.ts';

/** What the dashboard pages are built from (a subset of the app's dependencies). */
export interface DashboardDeps {
  db: Database;
  secrets: SecretBox;
  /** Revokes, key rotations and deletions are told to every api process's caches. */
  caches: CacheInvalidation;
  /** Login throttling counters. */
  redis: RedisConnection;
  /** QUEUE_PREFIX: the login throttle's Redis keys live under it, like the queues'. */
  queuePrefix: string;
  /** PASSWORD_HASH_LOG_N: the scrypt cost of new password hashes (and of an unknown email's login check). */
  passwordHashLogN: number;
  /** Disconnecting a channel cancels its scheduled jobs. */
  scheduler: PublishScheduler;
  /** Which publish jobs wait for a platform's rate-limit reset: the channel list's health. */
  rateLimitDelays: RateLimitDelays;
  now: () => Date;
  /** Each platform's app settings: what connecting needs. */
  platforms: PlatformApps;
  /** Where the dashboard itself lives: the OAuth callback URL is built on it. */
  frontendUrl: string;
  /** Whether a platform that pulls media by URL can reach this server's media (warned on its connect page). */
  mediaReach: MediaReach;
  /** The deployment's connection policy (ALLOW_PRIVATE_NETWORK): which webhook URLs may be registered. */
  userHosts: ConnectionPolicy;
  /** Where a resent delivery's attempt is queued. */
  webhookDeliveries: WebhookDeliveryJobs;
}
