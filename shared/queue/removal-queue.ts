import { Queue } from 'bullmq';
import type { RemovalJobPresence, RemovalJobRecovery } from '../domain/removal/removal-job-presence.ts';
import { LogEvent } from '../logging/events.ts';
import type { Logger } from '../logging/logger.ts';
import { defaultJobOptions, jobs, removePostJobId, removePostPayload } from './queues.ts';
import type { RedisConnection } from './redis.ts';

/**
 * The removals port on the `platform` queue: one job per post (its id derived from the post), with
 * the attempts and exponential backoff publishing has (PUBLISH_ATTEMPTS, PUBLISH_BACKOFF_MS),
 * since a removal, unlike the api's awaited calls there, is retried by the queue.
 */
export class BullRemovalJobs implements RemovalJobRecovery {
  readonly #queue: Queue;

  constructor(
    connection: RedisConnection,
    settings: { prefix: string; attempts: number; backoffMs: number },
    logger: Logger,
  ) {
    this.#queue = new Queue(jobs.removePost.queue, {
      connection,
      prefix: settings.prefix,
      defaultJobOptions: defaultJobOptions({ attempts: settings.attempts, backoffMs: settings.backoffMs }),
    });
    // Without a listener BullMQ prints each connection error while Redis is away.
    this.#queue.on('error', (error) => {
      logger.warn({ event: LogEvent.workerError, queue: this.#queue.name, err: error }, 'removal queue error');
    });
  }

  async request(job: { organizationId: string; postId: string }): Promise<void> {
    await this.#queue.add(jobs.removePost.name, removePostPayload.parse(job), { jobId: removePostJobId(job.postId) });
  }

  async presence(postId: string): Promise<RemovalJobPresence> {
    const state = await this.#queue.getJobState(removePostJobId(postId));
    if (state === 'unknown') return 'absent';
    return state === 'completed' || state === 'failed' ? 'finished' : 'pending';
  }

  async requeue(job: { organizationId: string; postId: string }): Promise<void> {
    // A finished job keeps its id, which would turn the add into a no-op; one a worker holds is not removed.
    if ((await this.presence(job.postId)) === 'finished') await this.#queue.remove(removePostJobId(job.postId));
    await this.request(job);
  }

  async close(): Promise<void> {
    await this.#queue.close();
  }
}
