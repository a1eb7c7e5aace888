import type { QueueEvents } from 'bullmq';
import type { RedisConnection } from './redis.ts';
import type { AwaitedJob } from '../domain/awaited-job.ts';
import { AwaitedQueue, awaitedQueueEvents } from './awaited-queue.ts';
import { jobs, mediaJobId, mediaJobPayload, QueueName, type MediaJobPayload } from './queues.ts';

/** The api's handle on the media worker: queue a record's processing and wait a bounded time for it. */
export class MediaQueue extends AwaitedQueue<MediaJobPayload> {
  constructor(producer: RedisConnection, events: QueueEvents, options: { prefix: string }) {
    super(producer, events, {
      queue: QueueName.media,
      name: jobs.processMedia.name,
      payload: mediaJobPayload,
      jobId: (payload) => mediaJobId(payload.mediaId),
      // Fetches and probes are retried a little: a flaky source or a busy disk deserves a second try.
      jobOptions: {
        attempts: 2, backoff: { type: 'exponential', delay: 2_000 },
        removeOnComplete: { age: 3600, count: 1000 }, removeOnFail: { age: 24 * 3600, count: 1000 },
      },
    }, options);
  }

  static events(connection: RedisConnection, prefix: string): QueueEvents {
    return awaitedQueueEvents(QueueName.media, connection, prefix);
  }

  processAndWait(payload: MediaJobPayload, timeoutMs: number): Promise<AwaitedJob> {
    return this.addAndWait(payload, timeoutMs);
  }
}
