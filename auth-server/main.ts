import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { ConfigError } from '../shared/config/config.ts';
import { handleShutdown } from '../shared/runtime/shutdown.ts';
import { LogEvent } from '../shared/logging/events.ts';
import { createLogger } from '../shared/logging/logger.ts';
import { closeHttpServer } from '../api/http-server.ts';
import { AddressThrottle, deviceCodes, verifyFailures } from './address-throttle.ts';
import { authServerSecrets, createAuthServerApp } from './app.ts';
import { loadAuthServerConfig, type AuthServerConfig } from './config.ts';
import { DeviceRequests } from './device-requests.ts';
import { ensureSchema } from './schema.ts';

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

// Listen before building the app: with PORT=0 the default public URL needs the port we were given.
const server = createServer();
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(config.port, () => { server.off('error', reject); resolve(); });
});
const port = (server.address() as AddressInfo).port;
const serverUrl = config.serverUrl ?? `http://localhost:${port}`;

const secrets = authServerSecrets(config.clientSecret);
const requests = new DeviceRequests(pool, secrets, config.pollIntervalSeconds);
const verifyThrottle = new AddressThrottle(pool, verifyFailures);
const codeThrottle = new AddressThrottle(pool, deviceCodes);
const app = createAuthServerApp({ config, serverUrl, pool, requests, verifyThrottle, codeThrottle, logger }, secrets);
const handle = app.callback();
// Koa settles every request itself (its error handler answers and logs), so nothing is left to await here.
server.on('request', (request, response) => { void handle(request, response); });
// Tests and scripts read the port from this line (PORT=0 asks for any free port).
logger.info(
  { event: LogEvent.serviceListening, port, url: serverUrl },
  `auth server listening on ${serverUrl} (port ${port})`,
);

// Every instance sweeps; a DELETE of expired rows is harmless to repeat.
async function sweep(): Promise<void> {
  const requestsDeleted = await requests.deleteExpired();
  const windowsDeleted = await verifyThrottle.deleteOld() + await codeThrottle.deleteOld();
  logger.debug({ event: LogEvent.authSweep, requestsDeleted, windowsDeleted }, 'swept expired rows');
}
const sweeping = setInterval(() => {
  sweep().catch((error: unknown) => {
    logger.warn({ event: LogEvent.authSweep, err: error }, 'sweeping expired device requests failed');
  });
}, config.sweepEveryMs);
sweeping.unref();

handleShutdown(logger, [
  { name: 'http server', run: () => closeHttpServer(server, 5_000) },
  { name: 'database', run: () => pool.end() },
], 10_000);
