import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { failThread, publishThread, type PublishDeps } from '../../shared/domain/publishing/publish-thread.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { PlatformError } from '../../shared/platforms/platform-error.ts';
import { publishPostPayload } from '../../shared/queue/queues.ts';

/**
 * Runs when a post is due. Acts on the error class, never on raw status codes:
 * retryable failures are thrown back to BullMQ (backoff) while attempts remain; anything else,
 * or the last attempt, marks the post failed and ends the job without retry.
 */
export function publishPostProcessor(deps: PublishDeps, baseLogger: Logger) {
  return async (job: Job, token?: string): Promise<{ releaseURL: string } | { skipped: string }> => {
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName, attempt: job.attemptsMade + 1 });
    const payload = publishPostPayload.safeParse(job.data);
    if (!payload.success) {
      log.error({ event: LogEvent.jobFailed, issues: payload.error.issues }, 'publish job has an invalid payload');
      throw new UnrecoverableError(`invalid payload: ${payload.error.message}`);
    }
    const { postId } = payload.data;
    log.info({ event: LogEvent.jobStarted, postId }, 'publishing post');

    try {
      const outcome = await publishThread(deps, postId);
      switch (outcome.kind) {
        case 'published':
          log.info({ event: LogEvent.postPublished, postId, releaseURL: outcome.releaseURL }, 'post published');
          return { releaseURL: outcome.releaseURL };
        case 'skipped':
          log.info({ event: LogEvent.jobCompleted, postId, reason: outcome.reason }, 'nothing to publish');
          return { skipped: outcome.reason };
        case 'waiting':
          log.info({ event: LogEvent.jobDelayed, postId, until: outcome.until.toISOString() }, 'next thread part is not due yet');
          await job.moveToDelayed(outcome.until.getTime(), token);
          throw new DelayedError();
      }
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      const failure = error instanceof Error ? error : new Error(String(error));
      const attempts = job.opts.attempts ?? 1;
      const lastAttempt = job.attemptsMade + 1 >= attempts;
      // Errors that are not the platform's (MongoDB, Redis) are worth another attempt too.
      const retryable = !(failure instanceof PlatformError) || failure.kind === 'retryable';
      if (retryable && !lastAttempt) {
        log.warn({ event: LogEvent.jobRetrying, postId, err: failure }, 'publish failed; BullMQ will retry');
        throw failure;
      }
      await failThread(deps, postId, failure);
      log.warn({ event: LogEvent.postFailed, postId, err: failure }, 'post failed');
      throw new UnrecoverableError(failure.message);
    }
  };
}
