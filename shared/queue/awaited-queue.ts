import { Queue, QueueEvents, type DefaultJobOptions, type Job } from 'bullmq';
import type { RedisConnection } from './redis.ts';
import type { z } from 'zod';
import type { AwaitedJob } from '../domain/awaited-job.ts';
import { awaitJob } from './awaited-job.ts';
import type { QueueName } from './queues.ts';

/** One kind of job the api queues and then waits for, a bounded time, before answering. */
export interface AwaitedJobSpec<Payload> {
  queue: QueueName;
  name: string;
  payload: z.ZodType<Payload>;
  /** Deterministic, so asking twice for the same record finds the job already there. */
  jobId(payload: Payload): string;
  jobOptions: DefaultJobOptions;
}

/** The events connection an AwaitedQueue listens on: a blocking one, never the producer's. */
export function awaitedQueueEvents(queue: QueueName, connection: RedisConnection, prefix: string): QueueEvents {
  return new QueueEvents(queue, { connection, prefix });
}

/** The api's handle on a worker queue whose answer it waits for (media processing, video generation). */
export class AwaitedQueue<Payload> {
  readonly #queue: Queue;
  readonly #events: QueueEvents;
  readonly #spec: AwaitedJobSpec<Payload>;

  constructor(
    producer: RedisConnection, events: QueueEvents, spec: AwaitedJobSpec<Payload>, options: { prefix: string },
  ) {
    this.#queue = new Queue(spec.queue, {
      connection: producer, prefix: options.prefix, defaultJobOptions: spec.jobOptions,
    });
    this.#events = events;
    this.#spec = spec;
  }

  /** Queues the job (or finds it queued) and waits up to `timeoutMs` for its result. */
  async addAndWait(payload: Payload, timeoutMs: number): Promise<AwaitedJob> {
    return awaitJob(await this.add(payload), this.#events, timeoutMs);
  }

  /** Queues the job (or finds it queued) without waiting for it. */
  async add(payload: Payload): Promise<Job> {
    const data = this.#spec.payload.parse(payload);
    return this.#queue.add(this.#spec.name, data, { jobId: this.#spec.jobId(data) });
  }

  async close(): Promise<void> {
    await this.#queue.close();
  }
}
