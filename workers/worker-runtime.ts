import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../shared/config/config.ts';
import { SecretBox } from '../shared/crypto/secret-box.ts';
import type { Database } from '../shared/db/database.ts';
import type { PublishDeps } from '../shared/domain/publishing/publish-thread.ts';
import type { MediaProcessingDeps } from '../shared/domain/media/process-media.ts';
import { publicAddressesOnly } from '../shared/net/safe-fetch.ts';
import { createAdapters } from '../shared/platforms/adapters.ts';
import { createStorage } from '../shared/storage/create-storage.ts';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';
import { jobs, QueueName } from '../shared/queue/queues.ts';
import { cleanExpiredProcessor } from './processors/clean-expired.ts';
import { platformCallProcessor } from './processors/platform-call.ts';
import { processMediaProcessor } from './processors/process-media.ts';
import { publishPostProcessor } from './processors/publish-post.ts';

export interface WorkerSettings {
  queues: readonly string[];
  prefix: string;
  publishConcurrency: number;
  platformConcurrency: number;
  mediaConcurrency: number;
  maintenanceEveryMs: number;
}

export type WorkerDeps = PublishDeps & MediaProcessingDeps;

export interface RunningWorkers {
  workers: Worker[];
  /** Stops taking jobs and waits for the running ones; after `timeoutMs` they are handed back. */
  close(timeoutMs: number): Promise<void>;
}

const knownQueues = new Set<string>(Object.values(QueueName));

/** Said on every remote media fetch, so site owners know who is asking. */
export const mediaFetchUserAgent = 'SPS-MediaFetcher/0.1 (Social Publishing Service; fetches media a user asked to post)';

/** Starts one BullMQ worker per queue named in `settings.queues`; an unknown name is an error. */
export async function startWorkers(deps: WorkerDeps, connection: Redis, settings: WorkerSettings, logger: Logger): Promise<RunningWorkers> {
  const unknown = settings.queues.filter((name) => !knownQueues.has(name));
  if (unknown.length > 0) throw new Error(`WORKER_QUEUES names unknown queues: ${unknown.join(', ')} (known: ${[...knownQueues].join(', ')})`);

  const workers: Worker[] = [];
  if (settings.queues.includes(QueueName.publish)) {
    workers.push(new Worker(QueueName.publish, publishPostProcessor(deps, logger), {
      connection,
      prefix: settings.prefix,
      concurrency: settings.publishConcurrency,
    }));
  }
  if (settings.queues.includes(QueueName.media)) {
    workers.push(new Worker(QueueName.media, processMediaProcessor(deps, logger), {
      connection,
      prefix: settings.prefix,
      concurrency: settings.mediaConcurrency,
    }));
  }
  if (settings.queues.includes(QueueName.maintenance)) {
    // Upserting the scheduler is idempotent: every worker process may do it at start.
    const queue = new Queue(QueueName.maintenance, { connection, prefix: settings.prefix });
    await queue.upsertJobScheduler(jobs.cleanExpired.name, { every: settings.maintenanceEveryMs }, { name: jobs.cleanExpired.name, data: {}, opts: { removeOnComplete: 100, removeOnFail: 100 } });
    await queue.close();
    workers.push(new Worker(QueueName.maintenance, cleanExpiredProcessor(deps, logger), { connection, prefix: settings.prefix, concurrency: 1 }));
  }
  if (settings.queues.includes(QueueName.platform)) {
    workers.push(new Worker(QueueName.platform, platformCallProcessor(deps, logger), {
      connection,
      prefix: settings.prefix,
      concurrency: settings.platformConcurrency,
    }));
  }
  for (const worker of workers) {
    // Without a listener an 'error' event would crash the process on a Redis blip.
    worker.on('error', (error) => { logger.error({ event: LogEvent.workerError, queue: worker.name, err: error }, 'worker error'); });
  }

  return {
    workers,
    async close(timeoutMs: number) {
      let timer: NodeJS.Timeout | undefined;
      const graceful = Promise.all(workers.map((worker) => worker.close()));
      const deadline = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => { resolve('timeout'); }, timeoutMs); });
      const result = await Promise.race([graceful.then(() => 'closed' as const), deadline]);
      clearTimeout(timer);
      if (result === 'timeout') {
        // Jobs still running are left to BullMQ's stalled-job check, which hands them to another worker.
        logger.warn({ event: LogEvent.serviceStopping, timeoutMs }, 'jobs still running at the shutdown deadline; handing them back');
        await Promise.all(workers.map((worker) => worker.close(true)));
      }
    },
  };
}

/** The workers as the configuration describes them (workers/main.ts and the tests both start them so). */
export async function startConfiguredWorkers(config: Config, db: Database, connection: Redis, logger: Logger): Promise<RunningWorkers> {
  const deps: WorkerDeps = {
    db,
    adapters: createAdapters({ timeoutMs: config.PLATFORM_TIMEOUT_MS }),
    secrets: new SecretBox(config.SECRETS_KEY),
    now: () => new Date(),
    storage: await createStorage(config),
    limits: { maxImageBytes: config.MEDIA_MAX_IMAGE_BYTES, maxVideoBytes: config.MEDIA_MAX_VIDEO_BYTES },
    fetch: {
      isAllowedAddress: config.ALLOW_PRIVATE_NETWORK ? () => true : publicAddressesOnly,
      allowHttp: config.ALLOW_PRIVATE_NETWORK,
      connectTimeoutMs: config.MEDIA_FETCH_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: config.MEDIA_FETCH_TOTAL_TIMEOUT_MS,
      maxRedirects: config.MEDIA_FETCH_MAX_REDIRECTS,
      userAgent: mediaFetchUserAgent,
    },
    ffmpegTimeoutSeconds: Math.ceil(config.FFPROBE_TIMEOUT_MS / 1000),
  };
  return startWorkers(deps, connection, {
    queues: config.WORKER_QUEUES,
    prefix: config.QUEUE_PREFIX,
    publishConcurrency: config.PUBLISH_CONCURRENCY,
    platformConcurrency: config.PLATFORM_CONCURRENCY,
    mediaConcurrency: config.MEDIA_CONCURRENCY,
    maintenanceEveryMs: config.MAINTENANCE_EVERY_MS,
  }, logger);
}
