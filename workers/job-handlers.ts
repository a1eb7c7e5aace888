import type { Job } from 'bullmq';
import type { Config } from '../shared/config/config.ts';
import { RecentReads } from '../shared/cache/recent-reads.ts';
import type { StoredChannel } from '../shared/domain/channels/channel-tokens.ts';
import { publishReadReuseMs } from '../shared/domain/publishing/prepare-thread.ts';
import { jobs } from '../shared/queue/queues.ts';
import { withRedisMutex } from '../shared/queue/redis-mutex.ts';
import type { JobContext } from './job-context.ts';
import { cleanExpiredProcessor } from './processors/clean-expired.ts';
import { deliverWebhookProcessor } from './processors/deliver-webhook.ts';
import { dispatchWebhooksProcessor } from './processors/dispatch-webhooks.ts';
import { gatherAnalyticsProcessor } from './processors/gather-analytics.ts';
import { generateVideoProcessor } from './processors/generate-video.ts';
import { platformCallProcessor } from './processors/platform-call.ts';
import { processMediaProcessor } from './processors/process-media.ts';
import { publishPostProcessor } from './processors/publish-post.ts';
import { refreshTokensProcessor } from './processors/refresh-tokens.ts';
import { removePostProcessor } from './processors/remove-post.ts';
import { scheduleAnalyticsProcessor } from './processors/schedule-analytics.ts';
import { sweepPublicationsProcessor } from './processors/sweep-publications.ts';
import { sweepRemovalsProcessor } from './processors/sweep-removals.ts';

export type JobDefinition = (typeof jobs)[keyof typeof jobs];
export type JobProcessor = (job: Job) => Promise<unknown>;

/** How one job of the queue table (shared/queue/queues.ts) is run by the workers. */
export interface JobHandler {
  readonly job: JobDefinition;
  /** A repeatable job: how often it runs; every process serving its queue keeps its scheduler. */
  readonly everyMs?: (config: Config) => number;
  create(context: JobContext): JobProcessor;
}

/** Said on every webhook delivery, so receivers' operators know who is calling. */
export const webhookUserAgent = 'SPS-Webhooks/0.1 (Social Publishing Service; events an organization subscribed to)';

/** Webhook deliveries the dispatcher reads per query. */
const webhookDispatchBatch = 200;

const pause = (ms: number): Promise<void> => new Promise((resolve) => { setTimeout(resolve, ms); });

/** Every job SPS runs, and the processor that runs it: the workers start from this table alone. */
export const jobHandlers: readonly JobHandler[] = [
  {
    job: jobs.publishPost,
    create: (context) => {
      const { deps, config, logger, metrics } = context;
      // One set of call slots and one channel read cache per process, shared by all its publish jobs.
      const callSlots = context.callSlots();
      const recentChannels = new RecentReads<StoredChannel>(publishReadReuseMs);
      const limits = {
        maxRetryAfterMs: config.PUBLISH_MAX_RETRY_AFTER_MS,
        maxRateLimitDelays: config.PUBLISH_MAX_RATE_LIMIT_DELAYS,
      };
      const occurrenceScheduler = context.publishScheduler();
      return publishPostProcessor({ ...deps, callSlots, recentChannels, occurrenceScheduler }, limits, logger, metrics);
    },
  },
  { job: jobs.platformCall, create: ({ deps, logger }) => platformCallProcessor(deps, logger) },
  {
    job: jobs.removePost,
    create: ({ deps, config, connection, logger }) => removePostProcessor({
      ...deps,
      // A part's lock outlives the platform's calls for it (a token refresh, then the removal).
      exclusive: (partId, work) => withRedisMutex(connection, `${config.QUEUE_PREFIX}:removal:${partId}`, {
        holdMs: 3 * config.PLATFORM_TIMEOUT_MS + 60_000, waitMs: 0,
      }, work),
    }, logger),
  },
  { job: jobs.processMedia, create: ({ deps, logger }) => processMediaProcessor(deps, logger) },
  { job: jobs.generateVideo, create: ({ deps, logger }) => generateVideoProcessor(deps, logger) },
  {
    job: jobs.gatherAnalytics,
    create: ({ deps, config, logger }) => gatherAnalyticsProcessor({ ...deps, sleep: pause }, {
      postDays: config.ANALYTICS_POST_DAYS,
      postsPerRun: config.ANALYTICS_POSTS_PER_RUN,
      paceMs: config.ANALYTICS_PACE_MS,
      maxRetryAfterMs: config.PUBLISH_MAX_RETRY_AFTER_MS,
      maxRateLimitDelays: config.PUBLISH_MAX_RATE_LIMIT_DELAYS,
    }, logger),
  },
  {
    job: jobs.cleanExpired,
    everyMs: (config) => config.MAINTENANCE_EVERY_MS,
    create: ({ deps, config, logger }) =>
      cleanExpiredProcessor({
        ...deps,
        analyticsRetentionDays: config.ANALYTICS_RETENTION_DAYS,
        retention: {
          notifications: config.NOTIFICATION_RETENTION_DAYS,
          webhookDeliveries: config.WEBHOOK_DELIVERY_RETENTION_DAYS,
          events: config.EVENT_RETENTION_DAYS,
        },
      }, logger),
  },
  {
    job: jobs.sweepPublications,
    everyMs: (config) => config.PUBLISH_SWEEP_EVERY_MS,
    create: (context) => sweepPublicationsProcessor(context.recovery(), {
      graceMs: context.config.PUBLISH_SWEEP_GRACE_MS,
      batchSize: context.config.PUBLISH_SWEEP_BATCH,
      lookbackHours: context.config.PUBLISH_SWEEP_LOOKBACK_HOURS,
    }, context.logger),
  },
  {
    job: jobs.sweepRemovals,
    // The publication sweep's pace, grace and recovery budget: removals are lost the same ways.
    everyMs: (config) => config.PUBLISH_SWEEP_EVERY_MS,
    create: (context) => sweepRemovalsProcessor({ ...context.deps, jobs: context.removals() }, {
      graceMs: context.config.PUBLISH_SWEEP_GRACE_MS,
      batchSize: context.config.PUBLISH_SWEEP_BATCH,
      maxRecoveries: context.config.PUBLISH_MAX_RECOVERIES,
    }, context.logger),
  },
  {
    job: jobs.refreshTokens,
    everyMs: (config) => config.TOKEN_REFRESH_EVERY_MS,
    create: ({ deps, config, logger }) => refreshTokensProcessor(deps, {
      aheadMs: config.TOKEN_REFRESH_AHEAD_MS,
      batchSize: config.TOKEN_REFRESH_BATCH,
    }, logger),
  },
  {
    job: jobs.scheduleAnalytics,
    everyMs: (config) => config.ANALYTICS_EVERY_MS,
    create: (context) =>
      scheduleAnalyticsProcessor({ ...context.deps, analytics: context.analyticsRequests() }, context.logger),
  },
  {
    job: jobs.dispatchWebhooks,
    everyMs: (config) => config.WEBHOOK_DISPATCH_EVERY_MS,
    create: ({ deps, config, logger }) => dispatchWebhooksProcessor(deps, {
      batchSize: webhookDispatchBatch,
      graceMs: config.WEBHOOK_DISPATCH_GRACE_MS,
      retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
    }, logger),
  },
  {
    job: jobs.deliverWebhook,
    create: ({ deps, config, logger }) => deliverWebhookProcessor(deps, {
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
      userAgent: webhookUserAgent,
    }, logger),
  },
];
