import type { Job } from 'bullmq';
import { sweepLostPublications, type RecoveryDeps } from '../../shared/domain/publishing/recover-publications.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';

export interface SweepSettings {
  graceMs: number;
  batchSize: number;
}

/** Re-queues due posts whose publish job was lost; run by a BullMQ job scheduler on the maintenance queue. */
export function sweepPublicationsProcessor(deps: RecoveryDeps, settings: SweepSettings, baseLogger: Logger) {
  return async (job: Job): Promise<{ checked: number; requeued: number; failed: number; errors: number }> => {
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName });
    const result = await sweepLostPublications(deps, settings);
    for (const postId of result.requeued) {
      log.warn({ event: LogEvent.postRecovered, postId }, 'due post had no live job; queued it again');
    }
    for (const postId of result.failed) {
      log.warn({ event: LogEvent.postFailed, postId }, 'due post was interrupted too often; failed it');
    }
    for (const { postId, error } of result.errors) {
      log.warn({ event: LogEvent.publishSweep, postId, err: error }, 'could not check a due post; the next sweep will');
    }
    const summary = {
      checked: result.checked,
      requeued: result.requeued.length,
      failed: result.failed.length,
      errors: result.errors.length,
    };
    log.info({ event: LogEvent.publishSweep, ...summary }, 'publish sweep done');
    return summary;
  };
}
