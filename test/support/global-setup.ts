import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from './free-port.ts';
import { startFerretDb } from '../../scripts/local/ferretdb.ts';
import { ensureRedis } from '../../scripts/local/redis.ts';
import { buildS3Server } from '../../scripts/local/s3-server.ts';
import { ensureDebianPackage } from '../../scripts/local/system-package.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Root URL of the MongoDB-wire server for this run; each test file appends its own database. */
    mongoUrl: string;
    redisUrl: string;
  }
}

const log = (line: string): void => { process.stderr.write(`[test setup] ${line}\n`); };

/**
 * Starts the real services the suite talks to: Redis (the machine's, or one we start) and a
 * FerretDB of its own on a free port over a temporary SQLite folder, unless MONGO_URL names a
 * server to use instead.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Media tests make their files with ffmpeg and inspect them with ffprobe.
  ensureDebianPackage('ffprobe', 'ffmpeg', log);
  ensureDebianPackage('chromium', 'chromium', log); // the browser tests drive Debian's chromium (test/browser/chromium.ts)
  // Built here, where no hook timeout applies; the S3 tests start their own instance.
  buildS3Server(log);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  await ensureRedis(redisUrl, log);
  project.provide('redisUrl', redisUrl);

  if (process.env.MONGO_URL !== undefined && process.env.MONGO_URL !== '') {
    project.provide('mongoUrl', process.env.MONGO_URL.replace(/\/[^/]*$/, '/'));
    return () => Promise.resolve();
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sps-test-ferretdb-'));
  const ferret = await startFerretDb({
    host: '127.0.0.1',
    port: await freePort(),
    dataDir,
    detached: false,
    logFile: path.join(dataDir, 'ferretdb.log'),
  }, log);
  project.provide('mongoUrl', ferret.url);
  return async () => {
    if (ferret.child !== null) {
      const exited = new Promise((resolve) => ferret.child?.once('exit', resolve));
      ferret.child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  };
}
