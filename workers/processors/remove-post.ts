import { UnrecoverableError, type Job } from 'bullmq';
import {
  removeFromPlatform, type RemovalWorkDeps,
} from '../../shared/domain/removal/remove-from-platform.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { removePostPayload } from '../../shared/queue/queues.ts';

/**
 * Takes a deleted post's published parts off its platform. A retryable failure is thrown back for
 * the queue's backoff; on the job's last attempt the domain settles it as failed instead.
 */
export function removePostProcessor(deps: RemovalWorkDeps, baseLogger: Logger) {
  return async (job: Job): Promise<unknown> => {
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName });
    const payload = removePostPayload.safeParse(job.data);
    if (!payload.success) throw new UnrecoverableError(`invalid payload: ${payload.error.message}`);
    const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const { postId } = payload.data;
    log.info({ event: LogEvent.jobStarted, postId, finalAttempt }, 'removing a post from its platform');
    try {
      const outcome = await removeFromPlatform(deps, payload.data, finalAttempt);
      log.info({ event: LogEvent.jobCompleted, outcome }, 'removal finished');
      return outcome;
    } catch (error) {
      const event = finalAttempt ? LogEvent.jobFailed : LogEvent.jobRetrying;
      log.warn({ event, err: error }, 'removal attempt failed');
      throw error;
    }
  };
}
