import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { awaitJob, type AwaitedJob } from './awaited-job.ts';
import { jobs, mediaJobId, mediaJobPayload, QueueName, type MediaJobPayload } from './queues.ts';

/** The api's handle on the media worker: queue a record's processing and wait a bounded time for it. */
export class MediaQueue {
  readonly #queue: Queue;
  readonly #events: QueueEvents;

  constructor(producer: Redis, events: QueueEvents, options: { prefix: string }) {
    this.#queue = new Queue(QueueName.media, {
      connection: producer,
      prefix: options.prefix,
      // Fetches and probes are retried a little: a flaky source or a busy disk deserves a second try.
      defaultJobOptions: { attempts: 2, backoff: { type: 'exponential', delay: 2_000 }, removeOnComplete: { age: 3600, count: 1000 }, removeOnFail: { age: 24 * 3600, count: 1000 } },
    });
    this.#events = events;
  }

  static events(connection: Redis, prefix: string): QueueEvents {
    return new QueueEvents(QueueName.media, { connection, prefix });
  }

  async processAndWait(payload: MediaJobPayload, timeoutMs: number): Promise<AwaitedJob> {
    const job = await this.#queue.add(jobs.processMedia.name, mediaJobPayload.parse(payload), { jobId: mediaJobId(payload.mediaId) });
    return awaitJob(job, this.#events, timeoutMs);
  }

  async close(): Promise<void> {
    await this.#queue.close();
  }
}
