import type Koa from 'koa';
import { Queue } from 'bullmq';
import { createApp } from './app.ts';
import type { AppState } from './context.ts';
import type { Config } from '../shared/config/config.ts';
import { SecretBox } from '../shared/crypto/secret-box.ts';
import type { Database } from '../shared/db/database.ts';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';
import { MediaQueue } from '../shared/queue/media-queue.ts';
import { VideoQueue } from '../shared/queue/video-queue.ts';
import { videoCatalogFor } from '../shared/video/video-settings.ts';
import { BullPlatformCaller } from '../shared/queue/platform-call-queue.ts';
import { BullRemovalJobs } from '../shared/queue/removal-queue.ts';
import { connectionPolicyFor } from '../shared/net/connection-policy.ts';
import { PlatformApps } from '../shared/platforms/platform-apps.ts';
import { createAdapters } from '../shared/platforms/platforms.ts';
import { createStorage } from '../shared/storage/create-storage.ts';
import { BullPublishScheduler, createPublishQueue } from '../shared/queue/publish-queue.ts';
import { RedisPostRetryLock } from '../shared/queue/post-retry-lock.ts';
import { RedisQueueSlotLock } from '../shared/queue/redis-queue-slot-lock.ts';
import { PublishRateLimitDelays } from '../shared/queue/publish-rate-limit-delays.ts';
import { createRedis } from '../shared/queue/redis.ts';
import { queuePrefixOf } from '../shared/queue/queue-prefix.ts';
import { FixedWindowLimiter } from './middleware/fixed-window-limiter.ts';
import { IdempotencyStore } from './middleware/idempotency-store.ts';
import { mediaReachFor } from '../shared/platforms/media-reach.ts';
import { newObjectKey } from '../shared/storage/object-key.ts';
import { registerQueueDepth } from '../shared/metrics/queue-depth.ts';
import { SpsMetrics } from '../shared/metrics/sps-metrics.ts';
import { QueueName } from '../shared/queue/queues.ts';
import { AnalyticsQueue } from '../shared/queue/analytics-queue.ts';
import { WebhookDeliveryQueue } from '../shared/queue/webhook-delivery-queue.ts';
import { WebhookOutbox } from '../shared/domain/webhooks/webhook-outbox.ts';
import { InvalidationBus, type CacheInvalidation } from '../shared/cache/invalidation-bus.ts';
import { InvalidatedCache } from '../shared/cache/invalidated-cache.ts';
import { CredentialLookup } from './caches/credential-lookup.ts';
import { cachedChannelFinder } from './caches/channel-lookup.ts';
import { trailingSlashes } from '../shared/net/trailing-slashes.ts';

export interface ApiRuntime {
  app: Koa<AppState>;
  publishQueue: Queue;
  /** This process's cache invalidation: a change told here is seen by its next request. */
  caches: CacheInvalidation;
  /** Closes queues and Redis connections (the caller closes the HTTP server first). */
  close(): Promise<void>;
}

/** The api wired as the configuration describes it (api/main.ts and the tests both build it so). */
export async function createApiRuntime(
  config: Config,
  db: Database,
  logger: Logger,
  /** Where each platform's app settings are read (`<PLATFORM>_CLIENT_ID`...; README, environment). */
  platformEnv: NodeJS.ProcessEnv = process.env,
): Promise<ApiRuntime> {
  const userHosts = connectionPolicyFor(config.ALLOW_PRIVATE_NETWORK);
  const platforms = new PlatformApps(platformEnv, { timeoutMs: config.PLATFORM_TIMEOUT_MS, userHosts });
  // The api never publishes, but it offers every declared tool: refuse to start with one unbuilt.
  const adapters = createAdapters(
    { timeoutMs: config.PLATFORM_TIMEOUT_MS, userHosts },
    (identifier) => platforms.context(identifier).app,
  );
  const storage = await createStorage(config);
  const producer = createRedis(config, 'producer', logger);
  // QueueEvents blocks on its connection, so it must not share the producer's fail-fast one.
  const eventConnections = [
    createRedis(config, 'worker', logger),
    createRedis(config, 'worker', logger),
    createRedis(config, 'worker', logger),
  ] as const;
  // BullMQ's keys: hash-tagged on a Redis Cluster. SPS's own keys below keep QUEUE_PREFIX as it is.
  const queuePrefix = queuePrefixOf(config);
  const events = BullPlatformCaller.events(eventConnections[0], queuePrefix);
  const mediaEvents = MediaQueue.events(eventConnections[1], queuePrefix);
  const videoEvents = VideoQueue.events(eventConnections[2], queuePrefix);
  for (const emitter of [events, mediaEvents, videoEvents]) {
    // Without a listener BullMQ prints each connection error while Redis is away.
    emitter.on('error', (error) => {
      logger.warn({ event: LogEvent.workerError, queue: emitter.name, err: error }, 'queue events error');
    });
  }
  const publishQueue = createPublishQueue(
    producer,
    { prefix: queuePrefix, attempts: config.PUBLISH_ATTEMPTS, backoffMs: config.PUBLISH_BACKOFF_MS },
    logger,
  );
  await Promise.all([
    publishQueue.waitUntilReady(), events.waitUntilReady(), mediaEvents.waitUntilReady(), videoEvents.waitUntilReady(),
  ]);
  const mediaQueue = new MediaQueue(producer, mediaEvents, { prefix: queuePrefix });
  const videoQueue = new VideoQueue(producer, videoEvents, { prefix: queuePrefix });
  const platformCaller = new BullPlatformCaller(producer, events, {
    prefix: queuePrefix, timeoutMs: config.PLATFORM_CALL_WAIT_MS,
  });
  const removals = new BullRemovalJobs(
    producer,
    { prefix: queuePrefix, attempts: config.PUBLISH_ATTEMPTS, backoffMs: config.PUBLISH_BACKOFF_MS },
    logger,
  );

  // One handle per queue for operators (depth metrics, Bull Board), on the producer's connection.
  const observedQueues = Object.values(QueueName).map(
    (name) => new Queue(name, { connection: producer, prefix: queuePrefix }),
  );
  const analytics = new AnalyticsQueue(producer, { prefix: queuePrefix });
  const webhookDeliveries = new WebhookDeliveryQueue(producer, { prefix: queuePrefix });
  webhookDeliveries.onError((error) => {
    logger.warn({ event: LogEvent.workerError, queue: QueueName.webhook, err: error }, 'queue error');
  });
  const metrics = new SpsMetrics('api');
  registerQueueDepth(metrics.registry, observedQueues);
  // Publishing goes through the fail-fast producer; subscribing needs a connection of its own.
  const caches = new InvalidationBus({
    publisher: producer,
    subscriber: createRedis(config, 'worker', logger),
    prefix: config.QUEUE_PREFIX,
    logger,
  });
  await caches.start();
  const secrets = new SecretBox(config.SECRETS_KEY);
  const cacheOptions = { ttlMs: config.API_CACHE_TTL_MS, maxEntries: 10_000 };
  const credentials = new CredentialLookup({ db, secrets, cache: new InvalidatedCache(caches, cacheOptions) });
  const findChannels = cachedChannelFinder(db, new InvalidatedCache(caches, cacheOptions));

  const app = createApp({
    metrics,
    metricsToken: config.METRICS_TOKEN,
    adapters,
    analytics,
    freshMs: config.ANALYTICS_FRESH_MS,
    queues: observedQueues,
    db,
    redis: producer,
    logger,
    secrets,
    credentials,
    caches,
    findChannels,
    scheduler: new BullPublishScheduler(publishQueue, producer),
    retryLock: new RedisPostRetryLock(producer, config.QUEUE_PREFIX),
    slotLock: new RedisQueueSlotLock(producer, config.QUEUE_PREFIX),
    rateLimitDelays: new PublishRateLimitDelays(publishQueue, producer),
    platformCaller,
    removals,
    limiter: new FixedWindowLimiter(producer, { limit: config.PUBLIC_API_RATE_LIMIT, windowSeconds: config.PUBLIC_API_RATE_WINDOW_SECONDS, keyPrefix: `${config.QUEUE_PREFIX}:rate-limit` }),
    postValidationLimiter: new FixedWindowLimiter(producer, {
      limit: config.PUBLIC_API_VALIDATE_RATE_LIMIT,
      windowSeconds: config.PUBLIC_API_RATE_WINDOW_SECONDS,
      keyPrefix: `${config.QUEUE_PREFIX}:rate-limit-post-validation`,
    }),
    idempotency: new IdempotencyStore(producer, {
      keyPrefix: `${config.QUEUE_PREFIX}:idempotency`,
      rememberMs: 24 * 60 * 60 * 1000,
      // Longer than any request holds it: upload-from-url and generate-video wait for their workers.
      leaseMs: Math.max(120_000, Math.max(config.MEDIA_WAIT_MS, config.VIDEO_WAIT_MS) + 60_000),
    }),
    now: () => new Date(),
    frontendUrl: config.FRONTEND_URL.replace(trailingSlashes, ''),
    platforms,
    backendUrl: config.BACKEND_URL.replace(trailingSlashes, ''),
    storage,
    mediaReach: mediaReachFor(storage.publicUrl(newObjectKey('jpg')), platforms),
    userHosts,
    uploadsPath: new URL(config.UPLOADS_PUBLIC_URL).pathname,
    environment: config.NODE_ENV,
    proxyHops: config.TRUST_PROXY_HOPS,
    queuePrefix: config.QUEUE_PREFIX,
    passwordHashLogN: config.PASSWORD_HASH_LOG_N,
    mediaQueue,
    mediaLimits: { maxImageBytes: config.MEDIA_MAX_IMAGE_BYTES, maxVideoBytes: config.MEDIA_MAX_VIDEO_BYTES },
    mediaWaitMs: config.MEDIA_WAIT_MS,
    videoCatalog: videoCatalogFor(config),
    videoQueue,
    videoWaitMs: config.VIDEO_WAIT_MS,
    webhookDeliveries,
    webhooks: new WebhookOutbox({
      db, logger, now: () => new Date(), jobs: webhookDeliveries, cache: new InvalidatedCache(caches, cacheOptions),
    }),
  });

  return {
    app,
    publishQueue,
    caches,
    async close() {
      await platformCaller.close();
      await removals.close();
      await mediaQueue.close();
      await videoQueue.close();
      await events.close();
      await mediaEvents.close();
      await videoEvents.close();
      await publishQueue.close();
      await Promise.all(observedQueues.map((queue) => queue.close()));
      await analytics.close();
      await webhookDeliveries.close();
      await caches.close();
      await producer.quit();
    },
  };
}
