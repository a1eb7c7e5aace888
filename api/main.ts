import { createApp } from './app.ts';
import { closeHttpServer } from './http-server.ts';
import { SecretBox } from '../shared/crypto/secret-box.ts';
import { openDatabase } from '../shared/db/database.ts';
import { handleShutdown } from '../shared/lifecycle/shutdown.ts';
import { LogEvent } from '../shared/logging/events.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { BullPublishScheduler, createPublishQueue } from '../shared/queue/publish-queue.ts';
import { createRedis } from '../shared/queue/redis.ts';
import { loadConfigOrExit } from '../shared/runtime/boot.ts';

const config = loadConfigOrExit();
const logger = createLogger({ name: 'api', level: config.LOG_LEVEL });

const db = await openDatabase(config.MONGO_URL);
const redis = createRedis(config.REDIS_URL, 'producer');
const publishQueue = createPublishQueue(redis, { prefix: config.QUEUE_PREFIX, attempts: config.PUBLISH_ATTEMPTS, backoffMs: config.PUBLISH_BACKOFF_MS });
await publishQueue.waitUntilReady();

const app = createApp({
  db,
  redis,
  logger,
  secrets: new SecretBox(config.SECRETS_KEY),
  scheduler: new BullPublishScheduler(publishQueue),
  now: () => new Date(),
});
const server = app.listen(config.PORT, config.HOST, () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.PORT;
  logger.info({ event: LogEvent.serviceListening, host: config.HOST, port }, `api listening on http://${config.HOST}:${port} (public API at ${config.BACKEND_URL}/public/v1)`);
});

handleShutdown(logger, [
  { name: 'http server', run: () => closeHttpServer(server, config.SHUTDOWN_TIMEOUT_MS / 2) },
  { name: 'publish queue', run: () => publishQueue.close() },
  { name: 'redis', run: () => redis.quit() },
  { name: 'mongodb', run: () => db.close() },
], config.SHUTDOWN_TIMEOUT_MS);
