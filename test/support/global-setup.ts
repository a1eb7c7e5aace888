import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from './free-port.ts';
import { postgresAdminUrl } from './postgres.ts';
import { startFerretDb } from '../../scripts/local/ferretdb.ts';
import { dropFerretDbDatabase } from '../../scripts/local/ferretdb-postgres.ts';
import { buildNostrRelay } from '../../scripts/local/nostr-relay.ts';
import { ensureLocalPostgres } from '../../scripts/local/postgres.ts';
import { ensureRedis } from '../../scripts/local/redis.ts';
import { buildS3Server } from '../../scripts/local/s3-server.ts';
import { installBlueskyPds } from '../../scripts/local/bluesky-pds.ts';
import { ensureDebianFile, ensureDebianPackage } from '../../scripts/local/system-package.ts';
import { defaultCaptionFont } from '../../shared/config/video-config.ts';
import { buildListmonk } from '../simulators/listmonk/listmonk-build.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Root URL of the MongoDB-wire server for this run; each test file appends its own database. */
    mongoUrl: string;
    redisUrl: string;
    /** The PostgreSQL database under the suite's FerretDB; empty when MONGO_URL names another server. */
    ferretdbPostgresUrl: string;
  }
}

const log = (line: string): void => { process.stderr.write(`[test setup] ${line}\n`); };


/**
 * Starts the real services the suite talks to: Redis (the machine's, or one we start) and a
 * FerretDB of its own on a free port over a PostgreSQL database of its own (the backend `npm start`
 * uses), unless MONGO_URL names a server to use instead.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Media tests make their files with ffmpeg and inspect them with ffprobe.
  ensureDebianPackage('ffprobe', 'ffmpeg', log);
  ensureDebianPackage('chromium', 'chromium', log); // the browser tests drive Debian's chromium (test/browser/chromium.ts)
  // Video generation narrates with espeak-ng and draws captions in a DejaVu font.
  ensureDebianPackage('espeak-ng', 'espeak-ng', log);
  ensureDebianFile(defaultCaptionFont, 'fonts-dejavu-core', log);
  // Built or installed here, where no hook timeout applies; the S3, Nostr, listmonk and Bluesky tests start their
  // own instances (the Bluesky PDS: test/support/bluesky-pds.ts).
  buildS3Server(log);
  buildNostrRelay(log);
  buildListmonk(log);
  installBlueskyPds(log);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  await ensureRedis(redisUrl, log);
  project.provide('redisUrl', redisUrl);

  if (process.env.MONGO_URL !== undefined && process.env.MONGO_URL !== '') {
    project.provide('mongoUrl', process.env.MONGO_URL.replace(/\/[^/]*$/, '/'));
    project.provide('ferretdbPostgresUrl', '');
    return () => Promise.resolve();
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sps-test-ferretdb-'));
  // The suite's FerretDB keeps its documents in a PostgreSQL database of its own, dropped at the end.
  await ensureLocalPostgres(postgresAdminUrl, log);
  const postgresUrl = new URL(postgresAdminUrl);
  postgresUrl.pathname = `/sps_test_ferretdb_${randomBytes(4).toString('hex')}`;
  const ferret = await startFerretDb({
    host: '127.0.0.1',
    port: await freePort(),
    backend: { kind: 'postgresql', url: postgresUrl.toString() },
    dataDir,
    detached: false,
    logFile: path.join(dataDir, 'ferretdb.log'),
  }, log);
  project.provide('mongoUrl', ferret.url);
  project.provide('ferretdbPostgresUrl', postgresUrl.toString());
  return async () => {
    if (ferret.child !== null) {
      const exited = new Promise((resolve) => ferret.child?.once('exit', resolve));
      ferret.child.kill('SIGTERM');
      await exited;
    }
    await dropFerretDbDatabase(postgresUrl.toString());
    await rm(dataDir, { recursive: true, force: true });
  };
}
