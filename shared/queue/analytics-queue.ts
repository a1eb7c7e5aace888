import { Queue } from 'bullmq';
import type { RedisConnection } from './redis.ts';
import { gatherAnalyticsJobId, gatherAnalyticsPayload, jobs, QueueName } from './queues.ts';
import type { AnalyticsGathering } from '../domain/analytics/analytics-gathering.ts';

/** Asks the analytics workers to read a channel's counters (the api when data is stale, the schedule). */
export class AnalyticsQueue implements AnalyticsGathering {
  readonly #queue: Queue;

  constructor(connection: RedisConnection, options: { prefix: string }) {
    this.#queue = new Queue(QueueName.analytics, {
      connection,
      prefix: options.prefix,
      defaultJobOptions: {
        attempts: 3,
        backoff: { type: 'exponential', delay: 60_000 },
        // Removed once done, so the next request for the channel can add a new job under the same id.
        removeOnComplete: true,
        // Kept an hour for operators to see; meanwhile the channel's next request is a no-op.
        removeOnFail: { age: 3600, count: 1000 },
      },
    });
  }

  async request(channelId: string): Promise<void> {
    const payload = gatherAnalyticsPayload.parse({ channelId });
    await this.#queue.add(jobs.gatherAnalytics.name, payload, { jobId: gatherAnalyticsJobId(channelId) });
  }

  async close(): Promise<void> {
    await this.#queue.close();
  }
}
