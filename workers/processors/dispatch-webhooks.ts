import type { Job, Queue } from 'bullmq';
import { dispatchRound, type DispatchSettings } from '../../shared/domain/webhooks/dispatch-webhooks.ts';
import type { Database } from '../../shared/db/database.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { deliverWebhookPayload, jobs, webhookJobId } from '../../shared/queue/queues.ts';

/**
 * The webhook dispatcher, run by a job scheduler every WEBHOOK_DISPATCH_EVERY_MS: queues one
 * `deliver-webhook` job per due delivery. Job ids name the delivery and its attempt count, so a
 * delivery still waiting from the previous round is not queued twice.
 */
export function dispatchWebhooksProcessor(
  deps: { db: Database; now: () => Date },
  settings: DispatchSettings,
  queue: Queue,
  baseLogger: Logger,
) {
  return async (job: Job): Promise<{ queued: number; lost: number }> => {
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName });
    const round = await dispatchRound(deps, settings);
    if (round.due.length > 0) {
      await queue.addBulk(round.due.map((due) => ({
        name: jobs.deliverWebhook.name,
        data: deliverWebhookPayload.parse(due),
        opts: { jobId: webhookJobId(due.deliveryId, due.attempt) },
      })));
    }
    const summary = { queued: round.due.length, lost: round.lost };
    if (round.lost > 0) {
      log.warn({ event: LogEvent.webhookDispatch, ...summary }, 'webhook attempts lost with their worker');
    }
    else log.debug({ event: LogEvent.webhookDispatch, ...summary }, 'webhook dispatch round');
    return summary;
  };
}
