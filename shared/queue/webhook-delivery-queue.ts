import { Queue, type DefaultJobOptions } from 'bullmq';
import type { DeliveryAttempt, WebhookDeliveryJobs } from '../domain/webhooks/delivery-jobs.ts';
import type { RedisConnection } from './redis.ts';
import { deliverWebhookPayload, jobs, QueueName, webhookJobId } from './queues.ts';

/** Options of every job on the webhook queue, whoever adds it (emits, the api's resend, the workers). */
export const webhookJobOptions: DefaultJobOptions = {
  // A receiver's failure is retried by the delivery's schedule, not by BullMQ.
  attempts: 1,
  // Kept a day, so the same attempt queued again meanwhile (the dispatcher's safety net) adds nothing.
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  // Removed at once: kept, its id would stop the dispatcher from queueing the delivery again.
  removeOnFail: true,
};

/** The webhook queue's producer: one `deliver-webhook` job per attempt, delayed until it is due. */
export class WebhookDeliveryQueue implements WebhookDeliveryJobs {
  readonly #queue: Queue;
  readonly #now: () => Date;

  constructor(connection: RedisConnection, options: { prefix: string; now?: () => Date }) {
    this.#queue = new Queue(QueueName.webhook, {
      connection,
      prefix: options.prefix,
      defaultJobOptions: webhookJobOptions,
    });
    this.#now = options.now ?? (() => new Date());
  }

  async queue(attempts: readonly DeliveryAttempt[]): Promise<void> {
    if (attempts.length === 0) return;
    const now = this.#now().getTime();
    await this.#queue.addBulk(attempts.map((attempt) => ({
      name: jobs.deliverWebhook.name,
      data: deliverWebhookPayload.parse({ deliveryId: attempt.deliveryId, attempt: attempt.attempt }),
      opts: {
        jobId: webhookJobId(attempt.deliveryId, attempt.attempt),
        delay: Math.max(0, attempt.dueAt.getTime() - now),
      },
    })));
  }

  /** Lets the owner listen for connection errors (BullMQ prints them without a listener). */
  onError(listener: (error: Error) => void): void {
    this.#queue.on('error', listener);
  }

  async close(): Promise<void> {
    await this.#queue.close();
  }
}
