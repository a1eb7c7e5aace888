import { Queue } from 'bullmq';
import type { RedisConnection } from './redis.ts';
import { LogEvent } from '../logging/events.ts';
import type { Logger } from '../logging/logger.ts';
import type { CancelOutcome, PublishScheduler, ScheduledPublication } from '../domain/posts/publish-scheduler.ts';
import type { PublishJobPresence, PublishJobs } from '../domain/publishing/publish-jobs.ts';
import { defaultJobOptions, jobs, publishJobId, publishPostPayload } from './queues.ts';
import { TenantTurns } from './tenant-turns.ts';

export interface QueueSettings {
  prefix: string;
  attempts: number;
  backoffMs: number;
}

export function createPublishQueue(connection: RedisConnection, settings: QueueSettings, logger?: Logger): Queue {
  const queue = new Queue(jobs.publishPost.queue, {
    connection,
    prefix: settings.prefix,
    defaultJobOptions: defaultJobOptions({ attempts: settings.attempts, backoffMs: settings.backoffMs }),
  });
  // Without a listener BullMQ prints each connection error while Redis is away.
  queue.on('error', (error) => {
    logger?.warn({ event: LogEvent.workerError, queue: queue.name, err: error }, 'publish queue error');
  });
  return queue;
}

/**
 * The posts domain's scheduling port and publication recovery's view of the queue, backed by
 * one delayed BullMQ job per post whose id is derived from the post (ARCHITECTURE rule 2), with
 * its organization's turn as its priority (tenant-turns.ts).
 */
export class BullPublishScheduler implements PublishScheduler, PublishJobs {
  readonly #queue: Queue;
  readonly #now: () => Date;
  readonly #turns: TenantTurns;

  /** `connection` is the one `queue` was made with; the turns are counted on it. */
  constructor(queue: Queue, connection: RedisConnection, now: () => Date = () => new Date()) {
    this.#queue = queue;
    this.#now = now;
    this.#turns = new TenantTurns(queue, connection);
  }

  async schedule(job: ScheduledPublication): Promise<void> {
    const { organizationId, postId, channelId } = job;
    const known = channelId === undefined ? {} : { channelId };
    const payload = publishPostPayload.parse({ organizationId, postId, ...known });
    const priority = await this.#turns.next(organizationId, job.publishAt);
    // BullMQ dues a job at its timestamp plus its delay, its timestamp being its add's clock
    // unless given: given the clock the delay was taken from, posts due at the same moment stay due
    // at that moment, in the order they were made, whatever the turn's round trip or a busy
    // process added to each add.
    const now = this.#now().getTime();
    await this.#queue.add(jobs.publishPost.name, payload, {
      jobId: publishJobId(job.postId),
      timestamp: now,
      delay: Math.max(0, job.publishAt.getTime() - now),
      priority,
    });
  }

  async cancel(postId: string): Promise<CancelOutcome> {
    const job = await this.#queue.getJob(publishJobId(postId));
    if (job === undefined) return 'absent';
    // remove() answers 0 when a worker holds the job's lock, i.e. it is publishing now.
    return (await this.#queue.remove(publishJobId(postId))) === 1 ? 'cancelled' : 'running';
  }

  async presence(postId: string): Promise<PublishJobPresence> {
    const state = await this.#queue.getJobState(publishJobId(postId));
    if (state === 'unknown') return 'absent';
    return state === 'completed' || state === 'failed' ? 'finished' : 'pending';
  }

  async requeue(job: { organizationId: string; postId: string }): Promise<void> {
    if ((await this.presence(job.postId)) === 'finished') {
      // The kept id would turn the add below into a no-op. If another recoverer replaced the job
      // in the meantime, remove() takes back that waiting job and the add puts the same one back;
      // a job a worker already holds is not removed (0), and the add then changes nothing.
      await this.#queue.remove(publishJobId(job.postId));
    }
    await this.schedule({ ...job, publishAt: this.#now() });
  }
}
