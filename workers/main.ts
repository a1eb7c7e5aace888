import { startConfiguredWorkers } from './worker-runtime.ts';
import { openDatabase } from '../shared/db/database.ts';
import { handleShutdown } from '../shared/lifecycle/shutdown.ts';
import { LogEvent } from '../shared/logging/events.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { createRedis } from '../shared/queue/redis.ts';
import { loadConfigOrExit } from '../shared/runtime/boot.ts';

const config = loadConfigOrExit();
const logger = createLogger({ name: 'workers', level: config.LOG_LEVEL });

const db = await openDatabase(config.MONGO_URL);
const redis = createRedis(config.REDIS_URL, 'worker');
const running = await startConfiguredWorkers(config, db, redis, logger);
logger.info({ event: LogEvent.serviceListening, queues: config.WORKER_QUEUES }, `workers running: ${config.WORKER_QUEUES.join(', ')}`);

handleShutdown(logger, [
  // Leave time after the workers for the connections to close before the hard deadline.
  { name: 'workers', run: () => running.close(config.SHUTDOWN_TIMEOUT_MS * 0.7) },
  { name: 'redis', run: () => redis.quit() },
  { name: 'mongodb', run: () => db.close() },
], config.SHUTDOWN_TIMEOUT_MS);
