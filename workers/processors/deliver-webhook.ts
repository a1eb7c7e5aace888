import { UnrecoverableError, type Job } from 'bullmq';
import {
  deliverWebhook, type WebhookDeliveryDeps, type WebhookDeliverySettings,
} from '../../shared/domain/webhooks/deliver-webhook.ts';
import { queueWrittenAttempts, type WebhookDeliveryJobs } from '../../shared/domain/webhooks/delivery-jobs.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import { deliverWebhookPayload } from '../../shared/queue/queues.ts';

/**
 * One attempt at one delivery. A receiver's failure is an outcome, recorded on the delivery and
 * retried by its schedule, not a job failure: the next attempt is queued as a job delayed until
 * it is due. The job fails only when MongoDB could not be used, and the dispatcher queues the
 * delivery again once it is overdue.
 */
export function deliverWebhookProcessor(
  deps: WebhookDeliveryDeps & { deliveryJobs: WebhookDeliveryJobs },
  settings: WebhookDeliverySettings,
  baseLogger: Logger,
) {
  return async (job: Job): Promise<{ outcome: string }> => {
    const payload = deliverWebhookPayload.safeParse(job.data);
    if (!payload.success) throw new UnrecoverableError(`invalid payload: ${payload.error.message}`);
    const { deliveryId, attempt } = payload.data;
    const log = baseLogger.child({ jobId: job.id, queue: job.queueName, deliveryId, attempt: attempt + 1 });
    let outcome;
    try {
      outcome = await deliverWebhook(deps, settings, payload.data);
    } catch (error) {
      log.error({ event: LogEvent.jobFailed, err: error }, 'webhook attempt could not be made or recorded');
      throw error;
    }
    switch (outcome.kind) {
      case 'skipped':
        log.info({ event: LogEvent.jobCompleted, reason: outcome.reason }, 'webhook delivery skipped');
        break;
      case 'delivered':
        log.info(
          { event: LogEvent.webhookDelivered, statusCode: outcome.statusCode, durationMs: outcome.durationMs },
          'webhook delivered',
        );
        break;
      case 'retrying': {
        const { statusCode, durationMs, error, cause } = outcome.send;
        const fields = { statusCode, durationMs, reason: error, err: cause, nextAttemptAt: outcome.nextAttemptAt };
        log.warn({ event: LogEvent.webhookRetrying, ...fields }, 'webhook attempt failed; retrying later');
        // The claim counted this attempt, so the next one claims the delivery at one more.
        const next = { deliveryId, attempt: attempt + 1, dueAt: outcome.nextAttemptAt };
        await queueWrittenAttempts(deps.deliveryJobs, [next], log);
        break;
      }
      case 'failed': {
        const { statusCode, durationMs, error, cause } = outcome.send;
        const fields = { statusCode, durationMs, reason: error, err: cause };
        log.warn({ event: LogEvent.webhookFailed, ...fields }, 'webhook failed after its last attempt');
        break;
      }
    }
    return { outcome: outcome.kind };
  };
}
