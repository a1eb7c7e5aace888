import type { QueueEvents } from 'bullmq';
import type { RedisConnection } from './redis.ts';
import type { AwaitedJob } from '../domain/awaited-job.ts';
import { AwaitedQueue, awaitedQueueEvents } from './awaited-queue.ts';
import { jobs, QueueName, videoJobId, videoJobPayload, type VideoJobPayload } from './queues.ts';

/** The api's handle on the video worker: queue a generation and wait a bounded time for the video. */
export class VideoQueue extends AwaitedQueue<VideoJobPayload> {
  constructor(producer: RedisConnection, events: QueueEvents, options: { prefix: string }) {
    super(producer, events, {
      queue: QueueName.video,
      name: jobs.generateVideo.name,
      payload: videoJobPayload,
      jobId: (payload) => videoJobId(payload.mediaId),
      // One attempt: a failure of the provider or the tools fails the media itself (with the
      // reason), and running a generation again would pay the provider again for the same video.
      jobOptions: {
        attempts: 1, removeOnComplete: { age: 3600, count: 1000 }, removeOnFail: { age: 24 * 3600, count: 1000 },
      },
    }, options);
  }

  static events(connection: RedisConnection, prefix: string): QueueEvents {
    return awaitedQueueEvents(QueueName.video, connection, prefix);
  }

  generateAndWait(payload: VideoJobPayload, timeoutMs: number): Promise<AwaitedJob> {
    return this.addAndWait(payload, timeoutMs);
  }
}
