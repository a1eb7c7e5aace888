import { Queue, QueueEvents } from 'bullmq';
import type { RedisConnection } from './redis.ts';
import type { PlatformCaller } from '../domain/channels/platform-calls.ts';
import { DomainError } from '../errors.ts';
import { awaitJob } from './awaited-job.ts';
import { jobs, platformCallPayload, QueueName, type PlatformCallPayload } from './queues.ts';

/**
 * Queues a platform call and waits for the worker's answer. One attempt only: the caller is
 * waiting and can retry, and tools may not be safe to repeat.
 */
export class BullPlatformCaller implements PlatformCaller {
  readonly #queue: Queue;
  readonly #events: QueueEvents;
  readonly #timeoutMs: number;

  constructor(producer: RedisConnection, events: QueueEvents, options: { prefix: string; timeoutMs: number }) {
    this.#queue = new Queue(QueueName.platform, {
      connection: producer,
      prefix: options.prefix,
      defaultJobOptions: { attempts: 1, removeOnComplete: { age: 3600, count: 1000 }, removeOnFail: { age: 24 * 3600, count: 1000 } },
    });
    this.#events = events;
    this.#timeoutMs = options.timeoutMs;
  }

  /** QueueEvents blocks on its own connection, so it gets a dedicated one. */
  static events(connection: RedisConnection, prefix: string): QueueEvents {
    return new QueueEvents(QueueName.platform, { connection, prefix });
  }

  async call(request: PlatformCallPayload): Promise<unknown> {
    const job = await this.#queue.add(jobs.platformCall.name, platformCallPayload.parse(request));
    let outcome;
    try {
      outcome = await awaitJob(job, this.#events, this.#timeoutMs);
    } catch (error) {
      throw new DomainError('platform_error', `the platform call failed: ${error instanceof Error ? error.message : String(error)}`, undefined, { cause: error });
    }
    if (!outcome.finished) throw new DomainError('platform_timeout', `the platform did not answer within ${this.#timeoutMs / 1000} seconds; try again later`);
    return outcome.result;
  }

  async close(): Promise<void> {
    await this.#queue.close();
  }
}
