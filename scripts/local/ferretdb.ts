import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildCachePath, sourcesTag } from './build-cache.ts';
import { prepareFerretDbDatabase } from './ferretdb-postgres.ts';
import { hasCommand } from './system-package.ts';
import { portIsOpen, waitForPort } from './wait-for-port.ts';

export const ferretdbVersion = 'v1.24.2';
const projectRoot = path.resolve(import.meta.dirname, '..', '..');
const wrapperDir = path.join(projectRoot, 'scripts', 'ferretdb');
export const ferretdbBinary = buildCachePath('ferretdb', `ferretdb-${ferretdbVersion}-${sourcesTag(wrapperDir)}`);

/**
 * Builds our tiny wrapper around FerretDB's embeddable package (scripts/ferretdb) once and
 * caches the binary in the build cache (build-cache.ts). A cold build downloads the modules from the Go module proxy
 * and compiles for about two minutes; later calls return at once.
 */
export function buildFerretDb(log: (line: string) => void): string {
  if (existsSync(ferretdbBinary)) return ferretdbBinary;
  if (!hasCommand('go')) {
    throw new Error('Go is needed to build the local MongoDB-compatible server (FerretDB); install Go 1.24+ or set MONGO_URL to a MongoDB server');
  }
  log(`building FerretDB ${ferretdbVersion} (first run only, about 2 minutes)...`);
  mkdirSync(path.dirname(ferretdbBinary), { recursive: true });
  const started = Date.now();
  // Checkouts share the build cache: each builds to a name of its own and renames, which is atomic.
  const partial = `${ferretdbBinary}.partial-${String(process.pid)}`;
  execFileSync('go', ['build', '-trimpath', '-o', partial, '.'], {
    cwd: wrapperDir,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
  });
  renameSync(partial, ferretdbBinary);
  log(`FerretDB built in ${Math.round((Date.now() - started) / 1000)} s`);
  return ferretdbBinary;
}

/**
 * Where FerretDB keeps the documents. PostgreSQL is the default: its backend turns equality
 * filters into SQL that PostgreSQL answers from FerretDB's indexes, where the SQLite backend scans
 * every document of a collection (docs/queries.md has the measurements).
 */
export type FerretDbBackend =
  | { kind: 'postgresql'; url: string }
  | { kind: 'sqlite'; dataDir: string };

export interface FerretDbOptions {
  host: string;
  port: number;
  backend: FerretDbBackend;
  /** Holds the pid file of a detached server. */
  dataDir: string;
  /** Detached servers outlive the script that started them (and are reused by the next one). */
  detached: boolean;
  logFile: string;
  /**
   * PostgreSQL backend: commands FerretDB runs at once (scripts/ferretdb/gate.go). Unset, under half
   * of the URL's `pool_max_conns`, which keeps FerretDB from deadlocking on its own pool.
   */
  maxCommands?: number;
}

export interface RunningFerretDb {
  url: string;
  /** Null when an already running server was reused. */
  child: ChildProcess | null;
}

function backendArguments(backend: FerretDbBackend): string[] {
  if (backend.kind === 'postgresql') return ['-handler', 'postgresql', '-postgresql-url', backend.url];
  mkdirSync(backend.dataDir, { recursive: true });
  return ['-handler', 'sqlite', '-sqlite-url', `file:${path.resolve(backend.dataDir)}/`];
}

/**
 * FerretDB's environment: Go's collector runs when the heap has grown 4x since the last
 * collection instead of 2x (GOGC=400), unless GOGC is set. FerretDB turns every document into
 * PostgreSQL's JSON and back and allocates much per command; under the publish benchmark this took
 * 12-15 % off its CPU for the same work (about 7.7 -> 6.5-7.0 s per 2,000 publishes), for a heap
 * of a few tens of MB more.
 */
export function ferretDbEnvironment(environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...environment, GOGC: environment.GOGC ?? '400' };
}

/** Starts FerretDB on the given backend unless something already listens on the port. */
export async function startFerretDb(options: FerretDbOptions, log: (line: string) => void): Promise<RunningFerretDb> {
  const url = `mongodb://${options.host}:${options.port}/`;
  if (await portIsOpen(options.host, options.port)) return { url, child: null };
  const binary = buildFerretDb(log);
  if (options.backend.kind === 'postgresql') await prepareFerretDbDatabase(options.backend.url);
  mkdirSync(options.dataDir, { recursive: true });
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const logFd = openSync(options.logFile, 'a');
  const child = spawn(
    binary,
    [
      '-listen', `${options.host}:${options.port}`, ...backendArguments(options.backend),
      ...(options.maxCommands === undefined ? [] : ['-max-commands', String(options.maxCommands)]),
    ],
    { detached: options.detached, stdio: ['ignore', logFd, logFd], env: ferretDbEnvironment(process.env) },
  );
  closeSync(logFd);
  if (options.detached) {
    child.unref();
    writeFileSync(path.join(options.dataDir, 'ferretdb.pid'), String(child.pid));
  }
  let exited = false;
  child.once('exit', () => { exited = true; });
  await waitForPort(options.host, options.port, { timeoutMs: 30_000, isAlive: () => !exited, what: `FerretDB (log: ${options.logFile})` });
  return { url, child };
}
