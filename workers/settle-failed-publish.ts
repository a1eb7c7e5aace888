import type { Job } from 'bullmq';
import { recoverPublication, type RecoveryDeps } from '../shared/domain/publishing/recover-publications.ts';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';
import { publishPostPayload } from '../shared/queue/queues.ts';

/**
 * A publish job that ended failed (stalled too often, or failed while MongoDB was away) can leave
 * its post queued with no job: settle it now rather than waiting for the sweep.
 */
export async function settleFailedPublishJob(recovery: RecoveryDeps, job: Job, logger: Logger): Promise<void> {
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
