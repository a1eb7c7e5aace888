import pg from 'pg';
import { ConfigError } from '../shared/config/config.ts';
import { handleShutdown } from '../shared/lifecycle/shutdown.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { closeHttpServer } from '../api/http-server.ts';
import { authServerSecrets, createAuthServerApp } from './app.ts';
import { loadAuthServerConfig, type AuthServerConfig } from './config.ts';
import { DeviceRequests } from './device-requests.ts';
import { ensureSchema } from './schema.ts';
import { VerifyThrottle } from './verify-throttle.ts';

let config: AuthServerConfig;
try {
  config = loadAuthServerConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`The auth server cannot start.\n${error.message}\nSee "Running the auth server" in README.md.\n`);
  process.exit(1);
}

const logger = createLogger({ name: 'auth-server', level: config.logLevel });
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10, connectionTimeoutMillis: 5_000 });
pool.on('error', (error) => { logger.error({ err: error }, 'idle database connection failed'); });
await ensureSchema(pool);

const secrets = authServerSecrets(config.clientSecret);
const requests = new DeviceRequests(pool, secrets);
const throttle = new VerifyThrottle(pool);
const app = createAuthServerApp({ config, pool, requests, throttle, logger }, secrets);
const server = app.listen(config.port, () => {
  logger.info({ event: 'service.listening', port: config.port }, `auth server listening on ${config.serverUrl} (port ${config.port})`);
});

// Every instance sweeps; a DELETE of expired rows is harmless to repeat.
const sweep = setInterval(() => {
  Promise.all([requests.deleteExpired(), throttle.deleteOld()]).catch((error: unknown) => { logger.warn({ err: error }, 'sweeping expired device requests failed'); });
}, 60_000);
sweep.unref();

handleShutdown(logger, [
  { name: 'http server', run: () => closeHttpServer(server, 5_000) },
  { name: 'database', run: () => pool.end() },
], 10_000);
