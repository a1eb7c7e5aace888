import { Queue, type DefaultJobOptions } from 'bullmq';
import type { RedisConnection } from '../shared/queue/redis.ts';
import type { Config } from '../shared/config/config.ts';
import type { RecoveryDeps } from '../shared/domain/publishing/recover-publications.ts';
import type { PublishScheduler } from '../shared/domain/posts/publish-scheduler.ts';
import { PlatformCallSlots } from '../shared/domain/publishing/platform-call-slots.ts';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';
import type { SpsMetrics } from '../shared/metrics/sps-metrics.ts';
import { AnalyticsQueue } from '../shared/queue/analytics-queue.ts';
import { BullPublishScheduler, createPublishQueue } from '../shared/queue/publish-queue.ts';
import { BullRemovalJobs } from '../shared/queue/removal-queue.ts';
import type { QueueName } from '../shared/queue/queues.ts';
import { queuePrefixOf } from '../shared/queue/queue-prefix.ts';
import type { WorkerDeps } from './worker-deps.ts';

/**
 * What a job handler is made from: the deps, the configuration, the logger and metrics, and the
 * queues a job adds to. Those queues are opened on first use, so a process serving only media
 * opens no publish queue, and all are closed with the context.
 */
export class JobContext {
  readonly #queues = new Map<QueueName, Queue>();
  readonly #settling = new Set<Promise<void>>();
  #recovery: { deps: RecoveryDeps; queue: Queue; scheduler: BullPublishScheduler } | null = null;
  #analytics: AnalyticsQueue | null = null;
  #removals: BullRemovalJobs | null = null;
  #callSlots: PlatformCallSlots | null = null;

  readonly deps: WorkerDeps;
  readonly config: Config;
  readonly connection: RedisConnection;
  readonly logger: Logger;
  readonly metrics: SpsMetrics;
  /** Default options of the jobs this process adds to a queue (the webhook dispatcher's attempts). */
  readonly #jobOptionsOf: (queue: QueueName) => DefaultJobOptions | undefined;

  constructor(parts: {
    deps: WorkerDeps;
    config: Config;
    connection: RedisConnection;
    logger: Logger;
    metrics: SpsMetrics;
    jobOptionsOf: (queue: QueueName) => DefaultJobOptions | undefined;
  }) {
    this.deps = parts.deps;
    this.config = parts.config;
    this.connection = parts.connection;
    this.logger = parts.logger;
    this.metrics = parts.metrics;
    this.#jobOptionsOf = parts.jobOptionsOf;
  }

  /** This process's producer for a queue: repeatable jobs are scheduled and dispatched jobs added through it. */
  queue(name: QueueName): Queue {
    const known = this.#queues.get(name);
    if (known !== undefined) return known;
    const defaultJobOptions = this.#jobOptionsOf(name);
    const queue = new Queue(name, {
      connection: this.connection,
      prefix: queuePrefixOf(this.config),
      ...(defaultJobOptions === undefined ? {} : { defaultJobOptions }),
    });
    // Without a listener BullMQ prints each connection error while Redis is away.
    queue.on('error', (error) => {
      this.logger.warn({ event: LogEvent.workerError, queue: name, err: error }, 'queue error');
    });
    this.#queues.set(name, queue);
    return queue;
  }

  /** Publication recovery re-adds publish jobs with the api's job options (PUBLISH_ATTEMPTS, backoff). */
  recovery(): RecoveryDeps {
    if (this.#recovery !== null) return this.#recovery.deps;
    const { config } = this;
    const settings = {
      prefix: queuePrefixOf(config), attempts: config.PUBLISH_ATTEMPTS, backoffMs: config.PUBLISH_BACKOFF_MS,
    };
    const queue = createPublishQueue(this.connection, settings, this.logger);
    const scheduler = new BullPublishScheduler(queue, this.connection, this.deps.now);
    const deps = { ...this.deps, jobs: scheduler, maxRecoveries: config.PUBLISH_MAX_RECOVERIES };
    this.#recovery = { deps, queue, scheduler };
    return deps;
  }

  /** Where a publish job queues a recurring post's next occurrence: recovery's queue, with the api's job options. */
  publishScheduler(): PublishScheduler {
    this.recovery();
    if (this.#recovery === null) throw new Error('publication recovery is set up by recovery()');
    return this.#recovery.scheduler;
  }

  /**
   * The process's platform-call slots, shared by all its publish jobs; the publish worker sizes the
   * jobs it holds by the upload slots in use (queue-runners.ts).
   */
  callSlots(): PlatformCallSlots {
    const { config } = this;
    this.#callSlots ??= new PlatformCallSlots({
      calls: config.PUBLISH_CONCURRENCY,
      uploads: config.PUBLISH_UPLOAD_CONCURRENCY,
      perAccount: config.PUBLISH_ACCOUNT_CONCURRENCY,
      platforms: { calls: config.PUBLISH_PLATFORM_CONCURRENCY, uploads: config.PUBLISH_PLATFORM_UPLOAD_CONCURRENCY },
    });
    return this.#callSlots;
  }

  /** Where the analytics schedule asks for each channel's gathering. */
  analyticsRequests(): AnalyticsQueue {
    this.#analytics ??= new AnalyticsQueue(this.connection, { prefix: queuePrefixOf(this.config) });
    return this.#analytics;
  }

  /** Where the removal sweep queues lost removals again, with the api's job options (PUBLISH_ATTEMPTS, backoff). */
  removals(): BullRemovalJobs {
    const { config } = this;
    const settings = {
      prefix: queuePrefixOf(config), attempts: config.PUBLISH_ATTEMPTS, backoffMs: config.PUBLISH_BACKOFF_MS,
    };
    this.#removals ??= new BullRemovalJobs(this.connection, settings, this.logger);
    return this.#removals;
  }

  /** Work started outside a job (settling a failed publish) that closing waits for. */
  track(work: Promise<void>): void {
    const tracked = work.finally(() => { this.#settling.delete(tracked); });
    this.#settling.add(tracked);
  }

  /** Waits for tracked work, then closes every queue opened; call after the workers are closed. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#settling]);
    await Promise.all([...this.#queues.values()].map((queue) => queue.close()));
    await this.#analytics?.close();
    await this.#removals?.close();
    await this.#recovery?.queue.close();
  }
}
