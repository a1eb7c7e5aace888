import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { unavailableBackingService } from '../../shared/backing-service-errors.ts';
import type { PublishRunDeps } from '../../shared/domain/publishing/publish-deps.ts';
import { failThread, publishThread } from '../../shared/domain/publishing/publish-thread.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { PlatformError } from '../../shared/platforms/kit/platform-error.ts';
import { publishPostPayload, type PublishPostPayload } from '../../shared/queue/queues.ts';
import type { SpsMetrics } from '../../shared/metrics/sps-metrics.ts';
import { recordPublishRun } from './publish-metrics.ts';
import { tellRetrying } from '../../shared/domain/publishing/tell-retrying.ts';

export interface PublishRetryLimits {
  /** A platform's "try again in" is followed up to this long. */
  maxRetryAfterMs: number;
  /** Rate-limit delays one job may take before a 429 counts as a failed attempt, so a job cannot be put off forever. */
  maxRateLimitDelays: number;
}

/**
 * Worth another attempt: the platform said "later" (429, 5xx, network) or MongoDB/Redis could
 * not be reached. Anything else (a rejected body, a revoked token, settings that no longer
 * parse, a bug) would fail the same way again, so it fails the post at once.
 */
function isTransient(error: Error): boolean {
  if (error instanceof PlatformError) return error.kind === 'retryable';
  return unavailableBackingService(error) !== null;
}

/**
 * Runs when a post is due. Acts on the error class, never on raw status codes: a platform's
 * rate limit with a reset time delays the job until then; other transient failures are thrown
 * back to BullMQ (exponential backoff) while attempts remain; anything else, or the last attempt,
 * marks the post failed and ends the job without retry.
 */
export function publishPostProcessor(
  deps: PublishRunDeps,
  limits: PublishRetryLimits,
  baseLogger: Logger,
  metrics?: SpsMetrics,
) {
  return async (job: Job, token?: string): Promise<{ releaseURL: string } | { skipped: string }> => {
    const startedAt = performance.now();
    const platformOf = (error: Error | null) => (error instanceof PlatformError ? error.provider : 'unknown');
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName, attempt: job.attemptsMade + 1 });
    const payload = publishPostPayload.safeParse(job.data);
    if (!payload.success) {
      log.error({ event: LogEvent.jobFailed, issues: payload.error.issues }, 'publish job has an invalid payload');
      throw new UnrecoverableError(`invalid payload: ${payload.error.message}`);
    }
    const { postId, organizationId, channelId } = payload.data;
    log.info({ event: LogEvent.jobStarted, postId }, 'publishing post');

    try {
      const turn = job.opts.priority;
      const outcome = await publishThread(deps, postId, { organizationId, channelId, turn });
      switch (outcome.kind) {
        case 'published':
          log.info({ event: LogEvent.postPublished, postId, releaseURL: outcome.releaseURL }, 'post published');
          if (outcome.warnings.length > 0) {
            log.warn(
              { event: LogEvent.postPublished, postId, warnings: outcome.warnings },
              'post published, but the platform refused an extra step (told in the notification)',
            );
          }
          recordPublishRun(metrics, startedAt, {
            outcome: 'completed', publishOutcome: 'published', platform: outcome.provider, error: null,
          });
          return { releaseURL: outcome.releaseURL };
        case 'skipped':
          log.info({ event: LogEvent.jobCompleted, postId, reason: outcome.reason }, 'nothing to publish');
          recordPublishRun(metrics, startedAt, {
            outcome: 'completed', publishOutcome: 'skipped', platform: 'unknown', error: null,
          });
          return { skipped: outcome.reason };
        case 'waiting':
          log.info(
            { event: LogEvent.jobDelayed, postId, until: outcome.until.toISOString() },
            'not due yet, or its account has enough publishes waiting in this process',
          );
          recordPublishRun(metrics, startedAt, {
            outcome: 'delayed', publishOutcome: 'waiting', platform: 'unknown', error: null,
          });
          await job.moveToDelayed(outcome.until.getTime(), token);
          throw new DelayedError();
      }
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      const failure = error instanceof Error ? error : new Error(String(error));
      if (failure instanceof PlatformError && failure.kind === 'retryable' && failure.retryAfterMs !== null) {
        const delayed = await delayForRateLimit(job, token, payload.data, failure.retryAfterMs, limits);
        if (delayed !== null) {
          log.warn(
            { event: LogEvent.jobDelayed, postId, ...delayed, err: failure },
            'the platform asked to wait; the job is delayed until its reset',
          );
          recordPublishRun(metrics, startedAt, {
            outcome: 'delayed', publishOutcome: 'rate_limited', platform: platformOf(failure), error: failure,
          });
          await tellRetrying(deps, postId, failure, new Date(Date.now() + delayed.delayMs), log);
          throw new DelayedError();
        }
      }
      const attempts = job.opts.attempts ?? 1;
      const lastAttempt = job.attemptsMade + 1 >= attempts;
      if (isTransient(failure) && !lastAttempt) {
        log.warn({ event: LogEvent.jobRetrying, postId, err: failure }, 'publish failed; BullMQ will retry');
        recordPublishRun(metrics, startedAt, {
          outcome: 'retrying', publishOutcome: 'retrying', platform: platformOf(failure), error: failure,
        });
        // BullMQ picks the backoff's time when the job is handed back: not known here.
        await tellRetrying(deps, postId, failure, null, log);
        throw failure;
      }
      await failThread(deps, postId, failure);
      log.warn({ event: LogEvent.postFailed, postId, err: failure }, 'post failed');
      recordPublishRun(metrics, startedAt, {
        outcome: 'failed', publishOutcome: 'failed', platform: platformOf(failure), error: failure,
      });
      throw new UnrecoverableError(failure.message);
    }
  };
}

/**
 * Moves the job back to the delayed set for the platform's reset time (capped), without spending
 * an attempt; null once the job has been delayed `maxRateLimitDelays` times already.
 */
async function delayForRateLimit(
  job: Job,
  token: string | undefined,
  payload: PublishPostPayload,
  retryAfterMs: number,
  limits: PublishRetryLimits,
): Promise<{ delayMs: number; rateLimitDelays: number } | null> {
  const count = (payload.rateLimitDelays ?? 0) + 1;
  if (count > limits.maxRateLimitDelays) return null;
  const delayMs = Math.min(retryAfterMs, limits.maxRetryAfterMs);
  await job.updateData({ ...payload, rateLimitDelays: count });
  await job.moveToDelayed(Date.now() + delayMs, token);
  return { delayMs, rateLimitDelays: count };
}
