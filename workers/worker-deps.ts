import type { RedisConnection } from '../shared/queue/redis.ts';
import { RedisChannelRefreshLock } from '../shared/queue/redis-channel-refresh-lock.ts';
import type { Config } from '../shared/config/config.ts';
import { SecretBox } from '../shared/crypto/secret-box.ts';
import type { Database } from '../shared/db/database.ts';
import { ChannelTokens } from '../shared/domain/channels/channel-tokens.ts';
import { publishReadReuseMs } from '../shared/domain/publishing/prepare-thread.ts';
import type { PublishDeps } from '../shared/domain/publishing/publish-deps.ts';
import type { VideoGenerationDeps } from '../shared/domain/video/generate-video.ts';
import type { WebhookDeliveryDeps } from '../shared/domain/webhooks/deliver-webhook.ts';
import { WebhookOutbox } from '../shared/domain/webhooks/webhook-outbox.ts';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';
import type { SpsMetrics } from '../shared/metrics/sps-metrics.ts';
import { connectionPolicyFor } from '../shared/net/connection-policy.ts';
import { publicAddressesOnly } from '../shared/net/safe-fetch.ts';
import { PlatformApps } from '../shared/platforms/platform-apps.ts';
import { createAdapters } from '../shared/platforms/platforms.ts';
import { queuePrefixOf } from '../shared/queue/queue-prefix.ts';
import { QueueName } from '../shared/queue/queues.ts';
import { WebhookDeliveryQueue } from '../shared/queue/webhook-delivery-queue.ts';
import { createStorage } from '../shared/storage/create-storage.ts';
import { countedRefresher } from './token-refresh-metrics.ts';
import { videoGenerationSettings } from './video-generation-settings.ts';

/** Everything the jobs' domain code reaches: the database, storage, platforms, tokens, outbox. */
export type WorkerDeps = PublishDeps & VideoGenerationDeps & WebhookDeliveryDeps & {
  /** Where webhook attempts are queued: an event's deliveries, retries, the dispatcher's recoveries. */
  deliveryJobs: WebhookDeliveryQueue;
};

/** Said on every remote media fetch, so site owners know who is asking. */
export const mediaFetchUserAgent =
  'SPS-MediaFetcher/0.1 (Social Publishing Service; fetches media a user asked to post)';

/** The workers' ports onto the outside world, as the configuration describes them. */
export async function createWorkerDeps(
  config: Config,
  db: Database,
  connection: RedisConnection,
  logger: Logger,
  metrics: SpsMetrics,
  /** Where each platform's app settings are read (`<PLATFORM>_CLIENT_ID`...; README, environment). */
  platformEnv: NodeJS.ProcessEnv,
): Promise<WorkerDeps> {
  const secrets = new SecretBox(config.SECRETS_KEY);
  const now = () => new Date();
  const userHosts = connectionPolicyFor(config.ALLOW_PRIVATE_NETWORK);
  const platforms = new PlatformApps(platformEnv, { timeoutMs: config.PLATFORM_TIMEOUT_MS, userHosts });
  const deliveryJobs = new WebhookDeliveryQueue(connection, { prefix: queuePrefixOf(config), now });
  deliveryJobs.onError((error) => {
    logger.warn({ event: LogEvent.workerError, queue: QueueName.webhook, err: error }, 'webhook queue error');
  });
  // A burst of one organization's publishes reads its endpoints once a second, not once a post.
  const webhooks = new WebhookOutbox({ db, logger, now, reuseEndpointsMs: publishReadReuseMs, jobs: deliveryJobs });
  const tokens = new ChannelTokens({
    db,
    secrets,
    refreshLock: new RedisChannelRefreshLock(connection, config.QUEUE_PREFIX),
    refresherFor: (provider) => countedRefresher(platforms.refresherFor(provider), provider, metrics),
    refreshAheadMs: config.TOKEN_REFRESH_AHEAD_MS,
    refreshTimeoutMs: config.PLATFORM_TIMEOUT_MS,
    now,
    webhooks,
  });
  return {
    db,
    secrets,
    userHosts,
    webhooks,
    deliveryJobs,
    adapters: createAdapters(
      { timeoutMs: config.PLATFORM_TIMEOUT_MS, userHosts },
      (identifier) => platforms.context(identifier).app,
    ),
    tokens,
    now,
    storage: await createStorage(config),
    limits: { maxImageBytes: config.MEDIA_MAX_IMAGE_BYTES, maxVideoBytes: config.MEDIA_MAX_VIDEO_BYTES },
    fetch: {
      isAllowedAddress: config.ALLOW_PRIVATE_NETWORK ? () => true : publicAddressesOnly,
      allowHttp: config.ALLOW_PRIVATE_NETWORK,
      connectTimeoutMs: config.MEDIA_FETCH_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: config.MEDIA_FETCH_TOTAL_TIMEOUT_MS,
      maxRedirects: config.MEDIA_FETCH_MAX_REDIRECTS,
      userAgent: mediaFetchUserAgent,
    },
    mediaToolTimeoutMs: config.FFPROBE_TIMEOUT_MS,
    mediaTools: { ffprobe: config.FFPROBE_PATH, ffmpeg: config.FFMPEG_PATH },
    video: videoGenerationSettings(config),
  };
}
