import { createApiRuntime } from './api-runtime.ts';
import { closeHttpServer, listenHttpServer } from './http-server.ts';
import { openDatabase } from '../shared/db/database.ts';
import { handleShutdown } from '../shared/runtime/shutdown.ts';
import { LogEvent } from '../shared/logging/events.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { loadConfigOrExit } from '../shared/runtime/boot.ts';

const config = loadConfigOrExit();
const logger = createLogger({ name: 'api', level: config.LOG_LEVEL });

const db = await openDatabase(config.MONGO_URL);
const runtime = await createApiRuntime(config, db, logger);
const server = await listenHttpServer(runtime.app.callback(), {
  host: config.HOST,
  port: config.PORT,
  requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
});
const address = server.address();
const port = typeof address === 'object' && address !== null ? address.port : config.PORT;
logger.info(
  { event: LogEvent.serviceListening, host: config.HOST, port },
  `api listening on http://${config.HOST}:${port} (public API at ${config.BACKEND_URL}/public/v1)`,
);

handleShutdown(logger, [
  { name: 'http server', run: () => closeHttpServer(server, config.SHUTDOWN_TIMEOUT_MS / 2) },
  { name: 'queues and redis', run: () => runtime.close() },
  { name: 'mongodb', run: () => db.close() },
], config.SHUTDOWN_TIMEOUT_MS);
