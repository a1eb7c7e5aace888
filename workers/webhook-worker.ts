import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { WebhookDeliveryDeps } from '../shared/domain/webhooks/deliver-webhook.ts';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';
import { jobs, QueueName } from '../shared/queue/queues.ts';
import { deliverWebhookProcessor } from './processors/deliver-webhook.ts';
import { dispatchWebhooksProcessor } from './processors/dispatch-webhooks.ts';

/** Said on every delivery, so receivers' operators know who is calling. */
export const webhookUserAgent = 'SPS-Webhooks/0.1 (Social Publishing Service; events an organization subscribed to)';

/** Deliveries handed out per dispatcher round. */
const dispatchBatch = 200;

export interface WebhookWorkerSettings {
  prefix: string;
  concurrency: number;
  dispatchEveryMs: number;
  timeoutMs: number;
  retryScheduleMs: readonly number[];
}

export interface RunningWebhookWorker {
  worker: Worker;
  close(): Promise<void>;
}

/**
 * The `webhook` queue: the dispatcher's job scheduler and the worker running both the dispatcher
 * and the attempts it queues. Every process serving the queue upserts the scheduler (idempotent).
 */
export async function startWebhookWorker(
  deps: WebhookDeliveryDeps,
  connection: Redis,
  settings: WebhookWorkerSettings,
  logger: Logger,
): Promise<RunningWebhookWorker> {
  const queue = new Queue(QueueName.webhook, {
    connection,
    prefix: settings.prefix,
    defaultJobOptions: {
      attempts: 1,
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      // A failed attempt job is removed at once: kept, its id would stop the dispatcher from queueing
      // the delivery again. The processor logs why it failed.
      removeOnFail: true,
    },
  });
  queue.on('error', (error) => {
    logger.warn({ event: LogEvent.workerError, queue: queue.name, err: error }, 'webhook queue error');
  });
  const upsertScheduler = async (): Promise<void> => {
    const opts = { removeOnComplete: 100, removeOnFail: 100 };
    const { name } = jobs.dispatchWebhooks;
    await queue.upsertJobScheduler(name, { every: settings.dispatchEveryMs }, { name, data: {}, opts });
  };
  await upsertScheduler();
  // A Redis restarted without its data forgets the scheduler, and with it every delivery.
  const rescheduleOnReconnect = (): void => {
    upsertScheduler().catch((error: unknown) => {
      logger.error({ event: LogEvent.workerError, queue: queue.name, err: error }, 'webhook scheduler not restored');
    });
  };
  connection.on('ready', rescheduleOnReconnect);

  const { timeoutMs, retryScheduleMs } = settings;
  const delivery = { timeoutMs, retryScheduleMs, userAgent: webhookUserAgent };
  const dispatch = { batchSize: dispatchBatch, retryScheduleMs };
  const processors: Record<string, (job: Job) => Promise<unknown>> = {
    [jobs.dispatchWebhooks.name]: dispatchWebhooksProcessor(deps, dispatch, queue, logger),
    [jobs.deliverWebhook.name]: deliverWebhookProcessor(deps, delivery, logger),
  };
  const worker = new Worker(QueueName.webhook, (job: Job) => {
    const processor = processors[job.name];
    if (processor === undefined) throw new UnrecoverableError(`no handler for webhook job "${job.name}"`);
    return processor(job);
  }, { connection, prefix: settings.prefix, concurrency: settings.concurrency });
  return {
    worker,
    async close() {
      connection.off('ready', rescheduleOnReconnect);
      await queue.close();
    },
  };
}
