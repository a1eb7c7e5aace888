import { LogEvent } from '../../logging/events.ts';
import type { Logger } from '../../logging/logger.ts';

/** One attempt at a delivery: the attempt count it claims, and when it may run. */
export interface DeliveryAttempt {
  deliveryId: string;
  /** Attempts the delivery has had; the job claims the delivery only at this count. */
  attempt: number;
  /** Not before this time (a retry waits for its turn in the schedule); the past means at once. */
  dueAt: Date;
}

/**
 * Where attempts are queued (the webhook queue). Queueing one twice adds nothing: its job is
 * named after the delivery and the attempt count, so the dispatcher may queue again whatever it
 * is unsure of.
 */
export interface WebhookDeliveryJobs {
  queue(attempts: readonly DeliveryAttempt[]): Promise<void>;
}

/**
 * Queues attempts whose deliveries are already written. A failure is logged, never thrown: the
 * deliveries are in MongoDB, and the dispatcher queues them once they are overdue by its grace.
 */
export async function queueWrittenAttempts(
  jobs: WebhookDeliveryJobs,
  attempts: readonly DeliveryAttempt[],
  logger: Logger,
): Promise<boolean> {
  if (attempts.length === 0) return true;
  try {
    await jobs.queue(attempts);
    return true;
  } catch (error) {
    const deliveryIds = attempts.slice(0, 20).map((attempt) => attempt.deliveryId);
    logger.warn(
      { event: LogEvent.webhookNotQueued, deliveries: attempts.length, deliveryIds, err: error },
      'webhook attempts could not be queued; the dispatcher will queue them once overdue',
    );
    return false;
  }
}
