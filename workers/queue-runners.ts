import type { DefaultJobOptions, Worker, WorkerOptions } from 'bullmq';
import type { Config } from '../shared/config/config.ts';
import { holdJobsForSlots, publishJobsHeld } from '../shared/domain/publishing/platform-call-slots.ts';
import { QueueName } from '../shared/queue/queues.ts';
import { webhookJobOptions } from '../shared/queue/webhook-delivery-queue.ts';
import type { JobContext } from './job-context.ts';
import { settleFailedPublishJob } from './settle-failed-publish.ts';

type RunnerOptions = Omit<WorkerOptions, 'connection' | 'prefix'>;

/** How a process serves one queue, whatever its jobs: the worker's options and what it listens to. */
export interface QueueRunner {
  options(config: Config): RunnerOptions;
  /** Options of the jobs this process adds to the queue (the dispatcher's attempts, the schedulers). */
  readonly jobOptions?: DefaultJobOptions;
  /** The queue's processor times its own runs, with labels only it knows (the platform). */
  readonly timesItsRuns?: boolean;
  attach?(worker: Worker, context: JobContext): void;
}

const callPools = (config: Config) =>
  ({ calls: config.PUBLISH_CONCURRENCY, uploads: config.PUBLISH_UPLOAD_CONCURRENCY });

/** Every queue and how it is served; WORKER_QUEUES picks which of them a process serves. */
export const queueRunners: Readonly<Record<QueueName, QueueRunner>> = {
  [QueueName.publish]: {
    options: (config) => ({
      // The call slots bound the platform calls; the worker holds more jobs so the slots never idle.
      concurrency: publishJobsHeld(callPools(config)),
      lockDuration: config.PUBLISH_LOCK_DURATION_MS,
      stalledInterval: config.PUBLISH_STALLED_INTERVAL_MS,
      maxStalledCount: config.PUBLISH_MAX_STALLED_COUNT,
    }),
    timesItsRuns: true,
    attach(worker, context) {
      // One more job per upload slot in use: a video's minutes never take a text post's job.
      holdJobsForSlots(worker, context.callSlots(), callPools(context.config));
      worker.on('failed', (job) => {
        if (job !== undefined) context.track(settleFailedPublishJob(context.recovery(), job, context.logger));
      });
    },
  },
  [QueueName.platform]: { options: (config) => ({ concurrency: config.PLATFORM_CONCURRENCY }) },
  [QueueName.media]: { options: (config) => ({ concurrency: config.MEDIA_CONCURRENCY }) },
  [QueueName.video]: { options: (config) => ({ concurrency: config.VIDEO_CONCURRENCY }) },
  // One at a time: the sweeps are batch reads that must not race one another.
  [QueueName.maintenance]: { options: () => ({ concurrency: 1 }) },
  [QueueName.analytics]: { options: (config) => ({ concurrency: config.ANALYTICS_CONCURRENCY }) },
  [QueueName.webhook]: {
    options: (config) => ({ concurrency: config.WEBHOOK_CONCURRENCY }),
    // The same options as every producer of attempts (failed jobs removed at once; the processor logs why).
    jobOptions: webhookJobOptions,
  },
};
