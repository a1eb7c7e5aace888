import type { Job } from 'bullmq';
import { hourOf } from '../../shared/domain/posts/due-bucket.ts';
import { sweepLostPublications, type RecoveryDeps } from '../../shared/domain/publishing/recover-publications.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';

export interface SweepSettings {
  graceMs: number;
  batchSize: number;
  /** Due buckets (hours) before the cutoff's that each sweep reads again (PUBLISH_SWEEP_LOOKBACK_HOURS). */
  lookbackHours: number;
}

/**
 * The oldest due bucket a sweep reads, or null for every queued post. A process's first sweep
 * reads them all: posts due before any look-back, whose jobs went while no worker ran, and parts
 * stored before buckets existed (it gives them one). Later sweeps read from the bucket of the last
 * sweep's cutoff, so a stretch without sweeps (Redis away, the maintenance queue not served)
 * leaves no hour unread, or from `lookbackHours` before the cutoff's when that is older: a job
 * still alive when its post was swept and lost later (a backlog, then Redis losing it) is found
 * while its bucket is that recent, and older ones by the next process to start.
 */
export function sweepFromHour(
  lastCutoffHour: number | null,
  cutoffHour: number,
  lookbackHours: number,
): number | null {
  return lastCutoffHour === null ? null : Math.min(lastCutoffHour, cutoffHour - lookbackHours);
}

/** Re-queues due posts whose publish job was lost; run by a BullMQ job scheduler on the maintenance queue. */
export function sweepPublicationsProcessor(deps: RecoveryDeps, settings: SweepSettings, baseLogger: Logger) {
  // Per process: the cutoff's bucket of this process's last sweep that ran to its end.
  let lastCutoffHour: number | null = null;
  return async (job: Job): Promise<{ checked: number; requeued: number; failed: number; errors: number }> => {
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName });
    const cutoffHour = hourOf(new Date(deps.now().getTime() - settings.graceMs));
    const fromHour = sweepFromHour(lastCutoffHour, cutoffHour, settings.lookbackHours);
    const result = await sweepLostPublications(deps, { ...settings, fromHour });
    // Even when some posts could not be checked: they stay queued in their bucket, read again within
    // the look-back.
    lastCutoffHour = hourOf(result.cutoff);
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
    log.info({ event: LogEvent.publishSweep, ...summary, fromHour }, 'publish sweep done');
    return summary;
  };
}
