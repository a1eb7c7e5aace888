import { startWorkerHttp } from './worker-http.ts';
import { startConfiguredWorkers } from './worker-runtime.ts';
import { readinessTimeoutMs } from '../shared/runtime/readiness.ts';
import { createStorage } from '../shared/storage/create-storage.ts';
import { openDatabase } from '../shared/db/database.ts';
import { handleShutdown } from '../shared/runtime/shutdown.ts';
import { LogEvent } from '../shared/logging/events.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { QueueName } from '../shared/queue/queues.ts';
import { createRedis } from '../shared/queue/redis.ts';
import { loadConfigOrExit } from '../shared/runtime/boot.ts';

const config = loadConfigOrExit();
const logger = createLogger({ name: 'workers', level: config.LOG_LEVEL, asynchronous: true });

const db = await openDatabase(config.MONGO_URL);
const redis = createRedis(config, 'worker', logger);
const running = await startConfiguredWorkers(config, db, redis, logger);
const http = config.WORKER_HTTP_PORT === undefined ? null : await startWorkerHttp(
  { host: config.HOST, port: config.WORKER_HTTP_PORT },
  {
    db,
    redis,
    storage: await createStorage(config),
    // Only the workers that inspect media or make videos need the media tools to be ready.
    mediaTools: config.WORKER_QUEUES.includes(QueueName.media) || config.WORKER_QUEUES.includes(QueueName.video)
      ? { ffprobe: config.FFPROBE_PATH, ffmpeg: config.FFMPEG_PATH }
      : null,
    speechEngine: config.WORKER_QUEUES.includes(QueueName.video) ? config.ESPEAK_PATH : null,
    timeoutMs: readinessTimeoutMs,
  },
  logger,
  { metrics: running.metrics, token: config.METRICS_TOKEN },
);
logger.info(
  { event: LogEvent.serviceListening, queues: config.WORKER_QUEUES, httpPort: http?.port ?? null },
  `workers running: ${config.WORKER_QUEUES.join(', ')}`,
);

// A publish cut short is only taken over after its lock expires, so running publishes get their
// own, longer grace; the hard deadline leaves time after it for the connections to close.
const jobsWithinMs = config.SHUTDOWN_TIMEOUT_MS * 0.7;
const publishesWithinMs = config.WORKER_QUEUES.includes(QueueName.publish)
  ? Math.max(config.PUBLISH_SHUTDOWN_GRACE_MS, jobsWithinMs)
  : jobsWithinMs;
handleShutdown(logger, [
  { name: 'health port', run: () => http?.close() ?? Promise.resolve() },
  { name: 'workers', run: () => running.close(jobsWithinMs, publishesWithinMs) },
  { name: 'redis', run: () => redis.quit() },
  { name: 'mongodb', run: () => db.close() },
], Math.max(jobsWithinMs, publishesWithinMs) + config.SHUTDOWN_TIMEOUT_MS * 0.3);
