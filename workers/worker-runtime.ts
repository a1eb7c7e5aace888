import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../shared/config/config.ts';
import { SecretBox } from '../shared/crypto/secret-box.ts';
import type { Database } from '../shared/db/database.ts';
import type { PublishDeps } from '../shared/domain/publishing/publish-thread.ts';
import { PlatformCallSlots, publishJobsPerCallSlot } from '../shared/domain/publishing/platform-call-slots.ts';
import { publishReadReuseMs } from '../shared/domain/publishing/prepare-thread.ts';
import { RecentReads } from '../shared/cache/recent-reads.ts';
import type { StoredChannel } from '../shared/domain/channels/channel-tokens.ts';
import { ChannelTokens } from '../shared/domain/channels/channel-tokens.ts';
import type { TokenSweepSettings } from '../shared/domain/channels/refresh-expiring-tokens.ts';
import { recoverPublication, type RecoveryDeps } from '../shared/domain/publishing/recover-publications.ts';
import type { VideoGenerationDeps } from '../shared/domain/video/generate-video.ts';
import { connectionPolicyFor } from '../shared/net/connection-policy.ts';
import { publicAddressesOnly } from '../shared/net/safe-fetch.ts';
import { PlatformApps } from '../shared/platforms/platform-apps.ts';
import { createAdapters } from '../shared/platforms/platforms.ts';
import { createStorage } from '../shared/storage/create-storage.ts';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';
import { BullPublishScheduler, createPublishQueue } from '../shared/queue/publish-queue.ts';
import { jobs, publishPostPayload, QueueName } from '../shared/queue/queues.ts';
import { cleanExpiredProcessor } from './processors/clean-expired.ts';
import { platformCallProcessor } from './processors/platform-call.ts';
import { processMediaProcessor } from './processors/process-media.ts';
import { generateVideoProcessor } from './processors/generate-video.ts';
import { videoGenerationSettings } from './video-generation-settings.ts';
import { publishPostProcessor, type PublishRetryLimits } from './processors/publish-post.ts';
import { sweepPublicationsProcessor, type SweepSettings } from './processors/sweep-publications.ts';
import { refreshTokensProcessor } from './processors/refresh-tokens.ts';
import { gatherAnalyticsProcessor, type GatherLimits } from './processors/gather-analytics.ts';
import { scheduleAnalyticsProcessor } from './processors/schedule-analytics.ts';
import { AnalyticsQueue } from '../shared/queue/analytics-queue.ts';
import { registerQueueDepth } from '../shared/metrics/queue-depth.ts';
import { SpsMetrics } from '../shared/metrics/sps-metrics.ts';
import { countedRefresher } from './token-refresh-metrics.ts';
import type { WebhookDeliveryDeps } from '../shared/domain/webhooks/deliver-webhook.ts';
import { WebhookOutbox } from '../shared/domain/webhooks/webhook-outbox.ts';
import { startWebhookWorker, type RunningWebhookWorker, type WebhookWorkerSettings } from './webhook-worker.ts';

export interface WorkerSettings {
  queues: readonly string[];
  prefix: string;
  /** Publishes calling platforms at once; the worker takes `publishJobsPerCallSlot` times as many jobs. */
  publishConcurrency: number;
  platformConcurrency: number;
  mediaConcurrency: number;
  videoConcurrency: number;
  maintenanceEveryMs: number;
  publish: PublishSettings;
  sweep: SweepSettings & { everyMs: number };
  tokenSweep: TokenSweepSettings & { everyMs: number };
  analytics: GatherLimits & { everyMs: number; concurrency: number; retentionDays: number };
  webhook: Omit<WebhookWorkerSettings, 'prefix'>;
}

/** How publish jobs are retried, taken over and recovered (config: PUBLISH_*). */
export interface PublishSettings extends PublishRetryLimits {
  attempts: number;
  backoffMs: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  maxStalledCount: number;
  maxRecoveries: number;
}

export type WorkerDeps = PublishDeps & VideoGenerationDeps & WebhookDeliveryDeps;

export interface RunningWorkers {
  workers: Worker[];
  /** Job timings and outcomes, token refreshes and the served queues' depth, for /metrics. */
  metrics: SpsMetrics;
  /**
   * Stops taking jobs and waits for the running ones: publish jobs up to `publishTimeoutMs`
   * (a publish can take minutes), the others up to `timeoutMs`; after that they are handed back.
   */
  close(timeoutMs: number, publishTimeoutMs?: number): Promise<void>;
}

const knownQueues = new Set<string>(Object.values(QueueName));

/** Said on every remote media fetch, so site owners know who is asking. */
export const mediaFetchUserAgent =
  'SPS-MediaFetcher/0.1 (Social Publishing Service; fetches media a user asked to post)';

/**
 * A publish job that ended failed (stalled too often, or failed while MongoDB was away) can leave
 * its post queued with no job: settle it now rather than waiting for the sweep.
 */
async function settleFailedPublishJob(recovery: RecoveryDeps, job: Job, logger: Logger): Promise<void> {
  const payload = publishPostPayload.safeParse(job.data);
  if (!payload.success) return;
  const { postId } = payload.data;
  const log = logger.child({ jobId: job.id, postId, reason: job.failedReason });
  try {
    const outcome = await recoverPublication(recovery, postId);
    if (outcome === 'requeued') log.warn({ event: LogEvent.postRecovered }, 'job failed, post unsettled; re-queued');
    if (outcome === 'failed') log.warn({ event: LogEvent.postFailed }, 'job failed too often; post failed');
  } catch (error) {
    log.error({ event: LogEvent.workerError, err: error }, 'could not settle the post; the sweep will');
  }
}

/** Waits for a worker's running jobs up to `timeoutMs`, then closes it at once (the stalled check hands them on). */
async function closeWorker(worker: Worker, timeoutMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => { resolve('timeout'); }, timeoutMs);
  });
  const result = await Promise.race([worker.close().then(() => 'closed' as const), deadline]);
  clearTimeout(timer);
  if (result === 'timeout') {
    const fields = { event: LogEvent.serviceStopping, queue: worker.name, timeoutMs };
    logger.warn(fields, 'jobs running at the deadline; handing them back');
    await worker.close(true);
  }
}

/** Times every finished job of a queue whose jobs name no platform into `sps_job_duration_seconds`. */
function timeJobs(worker: Worker, metrics: SpsMetrics): void {
  const observe = (job: Job | undefined, outcome: 'completed' | 'failed') => {
    if (job?.processedOn === undefined || job.finishedOn === undefined) return;
    const seconds = (job.finishedOn - job.processedOn) / 1000;
    metrics.jobDuration.observe({ queue: worker.name, platform: 'none', outcome }, seconds);
  };
  worker.on('completed', (job) => { observe(job, 'completed'); });
  worker.on('failed', (job) => { observe(job, 'failed'); });
}

/** Starts one BullMQ worker per queue named in `settings.queues`; an unknown name is an error. */
export async function startWorkers(
  deps: WorkerDeps,
  connection: Redis,
  settings: WorkerSettings,
  logger: Logger,
  metrics: SpsMetrics = new SpsMetrics('workers'),
): Promise<RunningWorkers> {
  const unknown = settings.queues.filter((name) => !knownQueues.has(name));
  if (unknown.length > 0) {
    const known = [...knownQueues].join(', ');
    throw new Error(`WORKER_QUEUES names unknown queues: ${unknown.join(', ')} (known: ${known})`);
  }

  const workers: Worker[] = [];
  const servesPublish = settings.queues.includes(QueueName.publish);
  const servesMaintenance = settings.queues.includes(QueueName.maintenance);
  // Recovery (the failed-job handler and the sweep) re-adds publish jobs, with the api's job options.
  const publishQueue = servesPublish || servesMaintenance
    ? createPublishQueue(connection, {
      prefix: settings.prefix, attempts: settings.publish.attempts, backoffMs: settings.publish.backoffMs,
    }, logger)
    : null;
  const recovery: RecoveryDeps | null = publishQueue === null
    ? null
    : {
      ...deps,
      jobs: new BullPublishScheduler(publishQueue, deps.now),
      maxRecoveries: settings.publish.maxRecoveries,
    };
  const settling = new Set<Promise<void>>();

  if (servesPublish && recovery !== null) {
    const callSlots = new PlatformCallSlots(settings.publishConcurrency);
    const recentChannels = new RecentReads<StoredChannel>(publishReadReuseMs);
    const publishDeps = { ...deps, callSlots, recentChannels };
    const processor = publishPostProcessor(publishDeps, settings.publish, logger, metrics);
    const worker = new Worker(QueueName.publish, processor, {
      connection,
      prefix: settings.prefix,
      concurrency: settings.publishConcurrency * publishJobsPerCallSlot,
      lockDuration: settings.publish.lockDurationMs,
      stalledInterval: settings.publish.stalledIntervalMs,
      maxStalledCount: settings.publish.maxStalledCount,
    });
    worker.on('failed', (job) => {
      if (job === undefined) return;
      const settled = settleFailedPublishJob(recovery, job, logger).finally(() => { settling.delete(settled); });
      settling.add(settled);
    });
    workers.push(worker);
  }
  if (settings.queues.includes(QueueName.media)) {
    workers.push(new Worker(QueueName.media, processMediaProcessor(deps, logger), {
      connection,
      prefix: settings.prefix,
      concurrency: settings.mediaConcurrency,
    }));
  }
  if (settings.queues.includes(QueueName.analytics)) {
    workers.push(new Worker(QueueName.analytics, gatherAnalyticsProcessor(
      { ...deps, sleep: (ms) => new Promise((resolve) => { setTimeout(resolve, ms); }) },
      settings.analytics,
      logger,
    ), { connection, prefix: settings.prefix, concurrency: settings.analytics.concurrency }));
  }
  if (settings.queues.includes(QueueName.video)) {
    workers.push(new Worker(QueueName.video, generateVideoProcessor(deps, logger), {
      connection,
      prefix: settings.prefix,
      concurrency: settings.videoConcurrency,
    }));
  }
  let maintenanceQueue: Queue | null = null;
  let analyticsRequests: AnalyticsQueue | null = null;
  let rescheduleOnReconnect: (() => void) | null = null;
  if (servesMaintenance && recovery !== null) {
    const queue = new Queue(QueueName.maintenance, { connection, prefix: settings.prefix });
    queue.on('error', (error) => {
      logger.warn({ event: LogEvent.workerError, queue: queue.name, err: error }, 'maintenance queue error');
    });
    maintenanceQueue = queue;
    // Upserting a scheduler is idempotent: every worker process may do it at start.
    const upsertSchedulers = async (): Promise<void> => {
      const opts = { removeOnComplete: 100, removeOnFail: 100 };
      const every = (job: { name: string }, everyMs: number) =>
        queue.upsertJobScheduler(job.name, { every: everyMs }, { name: job.name, data: {}, opts });
      await every(jobs.cleanExpired, settings.maintenanceEveryMs);
      await every(jobs.sweepPublications, settings.sweep.everyMs);
      await every(jobs.refreshTokens, settings.tokenSweep.everyMs);
      await every(jobs.scheduleAnalytics, settings.analytics.everyMs);
    };
    await upsertSchedulers();
    // A Redis that comes back without its data has forgotten the schedulers, and the sweep is
    // what recovers the jobs it lost: put them back on every reconnection.
    rescheduleOnReconnect = () => {
      upsertSchedulers().catch((error: unknown) => {
        logger.error({ event: LogEvent.workerError, queue: queue.name, err: error }, 'schedulers not restored');
      });
    };
    connection.on('ready', rescheduleOnReconnect);
    const requests = new AnalyticsQueue(connection, { prefix: settings.prefix });
    analyticsRequests = requests;
    const processors: Record<string, (job: Job) => Promise<unknown>> = {
      [jobs.cleanExpired.name]: cleanExpiredProcessor(
        { ...deps, analyticsRetentionDays: settings.analytics.retentionDays },
        logger,
      ),
      [jobs.scheduleAnalytics.name]: scheduleAnalyticsProcessor({ ...deps, analytics: requests }, logger),
      [jobs.sweepPublications.name]: sweepPublicationsProcessor(recovery, settings.sweep, logger),
      [jobs.refreshTokens.name]: refreshTokensProcessor(deps, settings.tokenSweep, logger),
    };
    workers.push(new Worker(QueueName.maintenance, (job: Job) => {
      const processor = processors[job.name];
      if (processor === undefined) throw new UnrecoverableError(`no handler for maintenance job "${job.name}"`);
      return processor(job);
    }, { connection, prefix: settings.prefix, concurrency: 1 }));
  }
  let webhook: RunningWebhookWorker | null = null;
  if (settings.queues.includes(QueueName.webhook)) {
    webhook = await startWebhookWorker(deps, connection, { ...settings.webhook, prefix: settings.prefix }, logger);
    workers.push(webhook.worker);
  }
  if (settings.queues.includes(QueueName.platform)) {
    workers.push(new Worker(QueueName.platform, platformCallProcessor(deps, logger), {
      connection,
      prefix: settings.prefix,
      concurrency: settings.platformConcurrency,
    }));
  }
  for (const worker of workers) {
    // Without a listener an 'error' event would crash the process on a Redis blip.
    worker.on('error', (error) => {
      logger.error({ event: LogEvent.workerError, queue: worker.name, err: error }, 'worker error');
    });
    // Publish runs are timed by their processor, which knows the platform and the outcome.
    if (worker.name !== QueueName.publish) timeJobs(worker, metrics);
  }
  const depthQueues = settings.queues.map((name) => new Queue(name, { connection, prefix: settings.prefix }));
  registerQueueDepth(metrics.registry, depthQueues);

  return {
    workers,
    metrics,
    async close(timeoutMs: number, publishTimeoutMs: number = timeoutMs) {
      if (rescheduleOnReconnect !== null) connection.off('ready', rescheduleOnReconnect);
      const within = (worker: Worker) => (worker.name === QueueName.publish ? publishTimeoutMs : timeoutMs);
      await Promise.all(workers.map((worker) => closeWorker(worker, within(worker), logger)));
      await Promise.allSettled([...settling]);
      await maintenanceQueue?.close();
      await analyticsRequests?.close();
      await webhook?.close();
      await publishQueue?.close();
      await Promise.all(depthQueues.map((queue) => queue.close()));
    },
  };
}

/** The workers as the configuration describes them (workers/main.ts and the tests both start them so). */
export async function startConfiguredWorkers(
  config: Config,
  db: Database,
  connection: Redis,
  logger: Logger,
  /** Where each platform's app settings are read (`<PLATFORM>_CLIENT_ID`...; README, environment). */
  platformEnv: NodeJS.ProcessEnv = process.env,
): Promise<RunningWorkers> {
  const secrets = new SecretBox(config.SECRETS_KEY);
  const now = () => new Date();
  const metrics = new SpsMetrics('workers');
  const userHosts = connectionPolicyFor(config.ALLOW_PRIVATE_NETWORK);
  const platforms = new PlatformApps(platformEnv, { timeoutMs: config.PLATFORM_TIMEOUT_MS, userHosts });
  // A burst of one organization's publishes reads its endpoints once a second, not once a post.
  const webhooks = new WebhookOutbox({ db, logger, now, reuseEndpointsMs: publishReadReuseMs });
  const tokens = new ChannelTokens({
    db,
    secrets,
    redis: connection,
    lockPrefix: config.QUEUE_PREFIX,
    refresherFor: (provider) => countedRefresher(platforms.refresherFor(provider), provider, metrics),
    refreshAheadMs: config.TOKEN_REFRESH_AHEAD_MS,
    refreshTimeoutMs: config.PLATFORM_TIMEOUT_MS,
    now,
    webhooks,
  });
  const deps: WorkerDeps = {
    db,
    secrets,
    userHosts,
    webhooks,
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
  return startWorkers(deps, connection, {
    queues: config.WORKER_QUEUES,
    prefix: config.QUEUE_PREFIX,
    publishConcurrency: config.PUBLISH_CONCURRENCY,
    platformConcurrency: config.PLATFORM_CONCURRENCY,
    mediaConcurrency: config.MEDIA_CONCURRENCY,
    videoConcurrency: config.VIDEO_CONCURRENCY,
    maintenanceEveryMs: config.MAINTENANCE_EVERY_MS,
    publish: {
      attempts: config.PUBLISH_ATTEMPTS,
      backoffMs: config.PUBLISH_BACKOFF_MS,
      lockDurationMs: config.PUBLISH_LOCK_DURATION_MS,
      stalledIntervalMs: config.PUBLISH_STALLED_INTERVAL_MS,
      maxStalledCount: config.PUBLISH_MAX_STALLED_COUNT,
      maxRecoveries: config.PUBLISH_MAX_RECOVERIES,
      maxRetryAfterMs: config.PUBLISH_MAX_RETRY_AFTER_MS,
      maxRateLimitDelays: config.PUBLISH_MAX_RATE_LIMIT_DELAYS,
    },
    sweep: {
      everyMs: config.PUBLISH_SWEEP_EVERY_MS,
      graceMs: config.PUBLISH_SWEEP_GRACE_MS,
      batchSize: config.PUBLISH_SWEEP_BATCH,
    },
    tokenSweep: {
      everyMs: config.TOKEN_REFRESH_EVERY_MS,
      aheadMs: config.TOKEN_REFRESH_AHEAD_MS,
      batchSize: config.TOKEN_REFRESH_BATCH,
    },
    analytics: {
      everyMs: config.ANALYTICS_EVERY_MS,
      concurrency: config.ANALYTICS_CONCURRENCY,
      retentionDays: config.ANALYTICS_RETENTION_DAYS,
      postDays: config.ANALYTICS_POST_DAYS,
      postsPerRun: config.ANALYTICS_POSTS_PER_RUN,
      paceMs: config.ANALYTICS_PACE_MS,
      maxRetryAfterMs: config.PUBLISH_MAX_RETRY_AFTER_MS,
      maxRateLimitDelays: config.PUBLISH_MAX_RATE_LIMIT_DELAYS,
    },
    webhook: {
      concurrency: config.WEBHOOK_CONCURRENCY,
      dispatchEveryMs: config.WEBHOOK_DISPATCH_EVERY_MS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
    },
  }, logger, metrics);
}
