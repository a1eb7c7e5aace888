import type { Job } from 'bullmq';
import { dispatchRound, type DispatchSettings } from '../../shared/domain/webhooks/dispatch-webhooks.ts';
import type { WebhookDeliveryJobs } from '../../shared/domain/webhooks/delivery-jobs.ts';
import type { Database } from '../../shared/db/database.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';

/**
 * The webhook dispatcher, run by a job scheduler every WEBHOOK_DISPATCH_EVERY_MS: the safety net
 * that queues again the deliveries whose job was lost. Deliveries are queued when written, so a
 * round normally finds nothing; it throws when it cannot queue (Redis away), and the next round
 * finds the same deliveries again.
 */
export function dispatchWebhooksProcessor(
  deps: { db: Database; deliveryJobs: WebhookDeliveryJobs; now: () => Date },
  settings: DispatchSettings,
  baseLogger: Logger,
) {
  return async (job: Job): Promise<{ requeued: number; lost: number }> => {
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName });
    const summary = await dispatchRound({ db: deps.db, jobs: deps.deliveryJobs, now: deps.now }, settings);
    if (summary.lost > 0 || summary.requeued > 0) {
      log.warn(
        { event: LogEvent.webhookDispatch, ...summary },
        'webhook deliveries had lost their job or their worker; queued them again',
      );
    } else log.debug({ event: LogEvent.webhookDispatch, ...summary }, 'webhook dispatch round');
    return summary;
  };
}
