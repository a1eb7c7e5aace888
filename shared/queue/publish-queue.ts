import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { CancelOutcome, PublishScheduler } from '../domain/posts/publish-scheduler.ts';
import { defaultJobOptions, jobs, publishJobId, publishPostPayload } from './queues.ts';

export interface QueueSettings {
  prefix: string;
  attempts: number;
  backoffMs: number;
}

export function createPublishQueue(connection: Redis, settings: QueueSettings): Queue {
  return new Queue(jobs.publishPost.queue, {
    connection,
    prefix: settings.prefix,
    defaultJobOptions: defaultJobOptions({ attempts: settings.attempts, backoffMs: settings.backoffMs }),
  });
}

/** The posts domain's scheduling port, backed by a delayed BullMQ job per post. */
export class BullPublishScheduler implements PublishScheduler {
  readonly #queue: Queue;
  readonly #now: () => Date;

  constructor(queue: Queue, now: () => Date = () => new Date()) {
    this.#queue = queue;
    this.#now = now;
  }

  async schedule(job: { organizationId: string; postId: string; publishAt: Date }): Promise<void> {
    const payload = publishPostPayload.parse({ organizationId: job.organizationId, postId: job.postId });
    await this.#queue.add(jobs.publishPost.name, payload, {
      jobId: publishJobId(job.postId),
      delay: Math.max(0, job.publishAt.getTime() - this.#now().getTime()),
    });
  }

  async cancel(postId: string): Promise<CancelOutcome> {
    const job = await this.#queue.getJob(publishJobId(postId));
    if (job === undefined) return 'absent';
    // remove() answers 0 when a worker holds the job's lock, i.e. it is publishing now.
    return (await this.#queue.remove(publishJobId(postId))) === 1 ? 'cancelled' : 'running';
  }
}
