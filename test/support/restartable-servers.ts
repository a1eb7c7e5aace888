import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFerretDb } from '../../scripts/local/ferretdb.ts';
import { waitForPort } from '../../scripts/local/wait-for-port.ts';
import { freePort } from './free-port.ts';

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

/** Redis persistence: none (a restart loses every job, the sweep's worst case) or AOF synced every second. */
export type RedisPersistence = 'none' | 'aof-everysec';

export async function startPrivateRedis(persistence: RedisPersistence): Promise<RestartableServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sps-fault-redis-'));
  const port = await freePort();
  const persistenceArgs = persistence === 'none'
    ? ['--save', '', '--appendonly', 'no']
    : ['--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec'];
  let child: ChildProcess | null = null;
  const server: RestartableServer = {
    url: `redis://127.0.0.1:${port}`,
    get running() { return child !== null && child.exitCode === null && child.signalCode === null; },
    async start() {
      const started = spawn('redis-server', [
        '--bind', '127.0.0.1', '--port', String(port), '--dir', dataDir, ...persistenceArgs,
        // BullMQ needs every key kept.
        '--maxmemory-policy', 'noeviction',
      ], { stdio: 'ignore' });
      child = started;
      const isAlive = () => started.exitCode === null;
      await waitForPort('127.0.0.1', port, { timeoutMs: 10_000, isAlive, what: 'private redis-server' });
    },
    async stop(signal = 'SIGKILL') {
      await killChild(child, signal);
    },
    async dispose() {
      await killChild(child, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/**
 * A FerretDB of the test's own over a SQLite folder: one process holds all of it, so killing
 * that process is the MongoDB-wire server going away, and starting it on the same folder brings
 * the same data back. (The suite's shared FerretDB may use another backend: scripts/local/ferretdb.ts.)
 */
export async function startPrivateFerretDb(): Promise<RestartableServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sps-fault-ferretdb-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const log = (line: string): void => { process.stderr.write(`[fault ferretdb] ${line}\n`); };
  const server: RestartableServer = {
    url: `mongodb://127.0.0.1:${port}/`,
    get running() { return child !== null && child.exitCode === null && child.signalCode === null; },
    async start() {
      const started = await startFerretDb({
        host: '127.0.0.1',
        port,
        backend: { kind: 'sqlite', dataDir: path.join(dataDir, 'sqlite') },
        dataDir,
        detached: false,
        logFile: path.join(dataDir, 'ferretdb.log'),
      }, log);
      if (started.child === null) throw new Error(`port ${port} is taken; the private FerretDB did not start`);
      child = started.child;
    },
    async stop(signal = 'SIGKILL') {
      await killChild(child, signal);
    },
    async dispose() {
      await killChild(child, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
