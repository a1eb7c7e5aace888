import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import {
  gatherChannelAnalytics,
  type GatherDeps,
  type GatherSettings,
} from '../../shared/domain/analytics/gather-analytics.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { PlatformError } from '../../shared/platforms/kit/platform-error.ts';
import { gatherAnalyticsPayload } from '../../shared/queue/queues.ts';

export interface GatherLimits extends GatherSettings {
  /** A platform's "try again in" is followed up to this long. */
  maxRetryAfterMs: number;
  /** Rate-limit delays one gathering may take before a 429 counts as a failed attempt. */
  maxRateLimitDelays: number;
}

/**
 * Gathers one channel's analytics. The platform's rate limit with a reset time delays the job
 * until then without spending an attempt (as publish jobs do); other transient failures go back
 * to BullMQ's backoff; a skipped channel completes.
 */
export function gatherAnalyticsProcessor(deps: GatherDeps, limits: GatherLimits, baseLogger: Logger) {
  return async (job: Job, token?: string): Promise<unknown> => {
    const payload = gatherAnalyticsPayload.safeParse(job.data);
    if (!payload.success) throw new UnrecoverableError(`invalid payload: ${payload.error.message}`);
    const { channelId } = payload.data;
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName, channelId });
    try {
      const outcome = await gatherChannelAnalytics(deps, channelId, limits);
      log.info({ event: LogEvent.jobCompleted, ...outcome }, 'analytics gathered');
      return outcome;
    } catch (error) {
      const delays = (payload.data.rateLimitDelays ?? 0) + 1;
      if (
        error instanceof PlatformError &&
        error.kind === 'retryable' &&
        error.retryAfterMs !== null &&
        delays <= limits.maxRateLimitDelays
      ) {
        const delayMs = Math.min(error.retryAfterMs, limits.maxRetryAfterMs);
        await job.updateData({ ...payload.data, rateLimitDelays: delays });
        await job.moveToDelayed(Date.now() + delayMs, token);
        log.warn({ event: LogEvent.jobDelayed, delayMs, err: error }, 'the platform asked to wait');
        throw new DelayedError();
      }
      log.warn({ event: LogEvent.jobFailed, err: error }, 'analytics gathering failed');
      if (error instanceof PlatformError && error.kind === 'permanent') throw new UnrecoverableError(error.message);
      throw error;
    }
  };
}
