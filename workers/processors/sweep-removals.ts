import type { Job } from 'bullmq';
import {
  recoverLostRemovals, type RemovalRecoveryDeps, type RemovalSweepSettings,
} from '../../shared/domain/removal/recover-removals.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';

/** Queues again the removals whose job was lost; run by a BullMQ job scheduler on the maintenance queue. */
export function sweepRemovalsProcessor(deps: RemovalRecoveryDeps, settings: RemovalSweepSettings, baseLogger: Logger) {
  return async (job: Job): Promise<{ checked: number; requeued: number; failed: number }> => {
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName });
    const result = await recoverLostRemovals(deps, settings);
    if (result.requeued > 0 || result.failed > 0) {
      log.warn({ event: LogEvent.jobCompleted, ...result }, 'removals whose job was lost were queued again or failed');
    }
    return result;
  };
}
