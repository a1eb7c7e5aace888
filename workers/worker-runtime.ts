import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { RedisConnection } from '../shared/queue/redis.ts';
import type { Config } from '../shared/config/config.ts';
import type { Database } from '../shared/db/database.ts';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';
import { registerQueueDepth } from '../shared/metrics/queue-depth.ts';
import { SpsMetrics } from '../shared/metrics/sps-metrics.ts';
import { queuePrefixOf } from '../shared/queue/queue-prefix.ts';
import { QueueName } from '../shared/queue/queues.ts';
import { closeWorker } from './close-worker.ts';
import { JobContext } from './job-context.ts';
import { jobHandlers } from './job-handlers.ts';
import { JobRegistry } from './job-registry.ts';
import { timeJobs } from './job-timing.ts';
import { queueRunners } from './queue-runners.ts';
import { keepRepeatableJobs } from './repeatable-jobs.ts';
import { createWorkerDeps } from './worker-deps.ts';

export interface RunningWorkers {
  workers: Worker[];
  /** Job timings and outcomes, token refreshes and the served queues' depth, for /metrics. */
  metrics: SpsMetrics;
  /**
   * Stops taking jobs and waits for the running ones: publish jobs up to `publishTimeoutMs`
   * (a publish can take minutes), the others up to `timeoutMs`; after that they are handed back.
   */
  close(timeoutMs: number, publishTimeoutMs?: number): Promise<void>;
}

const knownQueues: readonly string[] = Object.values(QueueName);
const isQueueName = (name: string): name is QueueName => knownQueues.includes(name);

/** The queues WORKER_QUEUES names; an unknown name is an error, said with the known ones. */
function servedQueues(names: readonly string[]): QueueName[] {
  const unknown = names.filter((name) => !isQueueName(name));
  if (unknown.length > 0)
    throw new Error(`WORKER_QUEUES names unknown queues: ${unknown.join(', ')} (known: ${knownQueues.join(', ')})`);
  return names.filter(isQueueName);
}

/** One BullMQ worker running the registry's handlers of `queue`, and its repeatable jobs scheduled. */
async function serveQueue(
  queue: QueueName,
  registry: JobRegistry,
  context: JobContext,
): Promise<{ worker: Worker; stopScheduling: () => void }> {
  const { config, connection, logger, metrics } = context;
  const handlers = [...registry.handlersOf(queue).values()];
  const processors = new Map(handlers.map((handler) => [handler.job.name as string, handler.create(context)]));
  const repeatable = handlers.flatMap(({ job, everyMs }) =>
    everyMs === undefined ? [] : [{ name: job.name, everyMs: everyMs(config) }]);
  const stopScheduling = repeatable.length === 0
    ? () => undefined
    : await keepRepeatableJobs(context.queue(queue), repeatable, connection, logger);
  const runner = queueRunners[queue];
  const worker = new Worker(queue, (job) => {
    const processor = processors.get(job.name);
    if (processor === undefined) throw new UnrecoverableError(`no handler for ${queue} job "${job.name}"`);
    return processor(job);
  }, { connection, prefix: queuePrefixOf(config), ...runner.options(config) });
  // Without a listener an 'error' event would crash the process on a Redis blip.
  worker.on('error', (error) => {
    logger.error({ event: LogEvent.workerError, queue, err: error }, 'worker error');
  });
  if (runner.timesItsRuns !== true) timeJobs(worker, metrics);
  runner.attach?.(worker, context);
  return { worker, stopScheduling };
}

/**
 * The workers as the configuration describes them (workers/main.ts and the tests both start them
 * so): one BullMQ worker per queue in WORKER_QUEUES, each running the job registry's handlers.
 */
export async function startConfiguredWorkers(
  config: Config,
  db: Database,
  connection: RedisConnection,
  logger: Logger,
  /** Where each platform's app settings are read (`<PLATFORM>_CLIENT_ID`...; README, environment). */
  platformEnv: NodeJS.ProcessEnv = process.env,
): Promise<RunningWorkers> {
  const registry = JobRegistry.of(jobHandlers);
  const queues = servedQueues(config.WORKER_QUEUES);
  const metrics = new SpsMetrics('workers');
  const deps = await createWorkerDeps(config, db, connection, logger, metrics, platformEnv);
  const jobOptionsOf = (queue: QueueName) => queueRunners[queue].jobOptions;
  const context = new JobContext({ deps, config, connection, logger, metrics, jobOptionsOf });
  const served: { worker: Worker; stopScheduling: () => void }[] = [];
  for (const queue of queues) served.push(await serveQueue(queue, registry, context));
  const depthQueues = queues.map((name) => new Queue(name, { connection, prefix: queuePrefixOf(config) }));
  registerQueueDepth(metrics.registry, depthQueues);

  const workers = served.map(({ worker }) => worker);
  return {
    workers,
    metrics,
    async close(timeoutMs: number, publishTimeoutMs: number = timeoutMs) {
      for (const { stopScheduling } of served) stopScheduling();
      const within = (worker: Worker) => (worker.name === QueueName.publish ? publishTimeoutMs : timeoutMs);
      await Promise.all(workers.map((worker) => closeWorker(worker, within(worker), logger)));
      await context.close();
      await deps.deliveryJobs.close();
      await Promise.all(depthQueues.map((queue) => queue.close()));
    },
  };
}
