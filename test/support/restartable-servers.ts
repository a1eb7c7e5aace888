import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFerretDb } from '../../scripts/local/ferretdb.ts';
import { dropFerretDbDatabase } from '../../scripts/local/ferretdb-postgres.ts';
import { waitForPort } from '../../scripts/local/wait-for-port.ts';
import { freePort } from './free-port.ts';
import { postgresAdminUrl } from './postgres.ts';

/**
 * A server of the fault tests' own, which they stop and start again under load. The suite's
 * shared Redis and FerretDB serve every other test file in parallel and are never restarted;
 * these run on a port and a data folder of their own. Restarts reuse the port (clients
 * reconnect to the same address), so the port is chosen before the first start.
 */
export interface RestartableServer {
  /** redis://127.0.0.1:<port> or mongodb://127.0.0.1:<port>/ (append the database name). */
  readonly url: string;
  readonly running: boolean;
  /** Kills the server (SIGKILL by default: a crash, nothing flushed) and waits until it is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and data folder; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops it for good and removes its data folder. */
  dispose(): Promise<void>;
}

async function killChild(child: ChildProcess | null, signal: NodeJS.Signals): Promise<void> {
  if (child === null || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/**
 * The server whose process `launch` starts (on the same port and folder each time), with its
 * data folder removed on dispose. Started once before it is returned.
 */
async function restartable(
  url: string,
  dataDir: string,
  launch: () => Promise<ChildProcess>,
  removeData: () => Promise<void> = () => Promise.resolve(),
): Promise<RestartableServer> {
  let child: ChildProcess | null = null;
  const server: RestartableServer = {
    url,
    get running() { return child !== null && child.exitCode === null && child.signalCode === null; },
    async start() {
      child = await launch();
    },
    async stop(signal = 'SIGKILL') {
      await killChild(child, signal);
    },
    async dispose() {
      await killChild(child, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      await removeData();
    },
  };
  await server.start();
  return server;
}

/** Redis persistence: none (a restart loses every job, the sweep's worst case) or AOF synced every second. */
export type RedisPersistence = 'none' | 'aof-everysec';

export async function startPrivateRedis(persistence: RedisPersistence): Promise<RestartableServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sps-fault-redis-'));
  const port = await freePort();
  const persistenceArgs = persistence === 'none'
    ? ['--save', '', '--appendonly', 'no']
    : ['--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec'];
  return restartable(`redis://127.0.0.1:${port}`, dataDir, async () => {
    const logFile = path.join(dataDir, 'redis.log');
    const started = spawn('redis-server', [
      '--bind', '127.0.0.1', '--port', String(port), '--dir', dataDir, '--logfile', logFile, ...persistenceArgs,
      // BullMQ needs every key kept.
      '--maxmemory-policy', 'noeviction',
    ], { stdio: 'ignore' });
    const isAlive = () => started.exitCode === null;
    try {
      // Started in milliseconds when quiet; a full test run once kept one from listening for 10 s.
      await waitForPort('127.0.0.1', port, { timeoutMs: 30_000, isAlive, what: 'private redis-server' });
    } catch (error) {
      started.kill('SIGKILL');
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2_000) : '(no log written)';
      throw new Error(`${error instanceof Error ? error.message : String(error)}; its log:\n${log}`, { cause: error });
    }
    return started;
  });
}

/**
 * A FerretDB of the test's own, on the PostgreSQL backend like the default, over a database of
 * its own: killing the FerretDB process is the MongoDB-wire server going away, and starting it
 * again on the same database brings the same data back.
 */
export async function startPrivateFerretDb(): Promise<RestartableServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sps-fault-ferretdb-'));
  const port = await freePort();
  const postgresUrl = new URL(postgresAdminUrl);
  postgresUrl.pathname = `/sps_fault_ferretdb_${randomBytes(4).toString('hex')}`;
  const log = (line: string): void => { process.stderr.write(`[fault ferretdb] ${line}\n`); };
  const launch = async (): Promise<ChildProcess> => {
    const started = await startFerretDb({
      host: '127.0.0.1',
      port,
      backend: { kind: 'postgresql', url: postgresUrl.toString() },
      dataDir,
      detached: false,
      logFile: path.join(dataDir, 'ferretdb.log'),
    }, log);
    if (started.child === null) throw new Error(`port ${port} is taken; the private FerretDB did not start`);
    return started.child;
  };
  return restartable(`mongodb://127.0.0.1:${port}/`, dataDir, launch, () => dropFerretDbDatabase(postgresUrl.toString()));
}
